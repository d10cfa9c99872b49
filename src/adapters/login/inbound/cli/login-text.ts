import { BoardListing } from '../../../../domain/login/boards/boards';
import { escapedControls } from '../../../../domain/shared/quoted';

/*
 * What the sign-in and board commands print. The e-mail is the identity provider's text, the
 * login the git host's, the ids and names the board tool's: each goes through escapedControls
 * (quoted.ts), so that none of them can write an escape sequence to the terminal. --json returns
 * them as they are.
 */

/** `Logged in to <domain> as <e-mail>.` (without `as` when the id token has no e-mail). */
export function loggedInLine(domain: string, email?: string): string {
  const who = email === undefined ? '' : ` as ${escapedControls(email)}`;
  return `Logged in to ${escapedControls(domain)}${who}.`;
}

/** `Git token of <login> stored[ for <domain>].` */
export function gitTokenStoredLine(login: string, domain?: string): string {
  const where = domain === undefined ? '' : ` for ${escapedControls(domain)}`;
  return `Git token of ${escapedControls(login)} stored${where}.`;
}

/** `boards list`'s table: a heading, then each board's id, name and project (its name, else its id). */
export function boardRows(boards: readonly BoardListing[]): string[][] {
  return [
    ['ID', 'BOARD', 'PROJECT'],
    ...boards.map((b) => [b.id, b.name, b.project.name || b.project.id].map(escapedControls)),
  ];
}

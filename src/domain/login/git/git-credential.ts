import { IdentityError, UsageError } from '../../shared/errors';
import { quoted } from '../../shared/quoted';

/**
 * git's credential helper protocol (git-credential(1), "INPUT/OUTPUT FORMAT"): git
 * writes `key=value` lines, ends them with a blank line or EOF, and reads the same
 * back. Only `protocol` and `host` (with its port) matter to skiff.
 */
export interface GitCredentialRequest {
  readonly protocol?: string;
  readonly host?: string;
}

export const GIT_CREDENTIAL_OPERATIONS = ['get', 'store', 'erase'] as const;
export type GitCredentialOperation = (typeof GIT_CREDENTIAL_OPERATIONS)[number];

/**
 * Reads the request as git reads a credential (credential.c, credential_read_fp): lines up
 * to the first empty one, a CR before the LF dropped, a line without `=` refused; a key
 * given twice takes its last value, and an empty key is one more key skiff ignores.
 */
export function parseGitCredentialRequest(text: string): GitCredentialRequest {
  const fields: { protocol?: string; host?: string } = {};
  for (const line of text.split('\n')) {
    const clean = line.replace(/\r$/, '');
    if (clean === '') break;
    const eq = clean.indexOf('=');
    if (eq < 0)
      throw new UsageError(`git credential input line ${quoted(clean.slice(0, 40))} is not key=value`, 'GIT.BAD_INPUT');
    const key = clean.slice(0, eq);
    if (key === 'protocol' || key === 'host') fields[key] = clean.slice(eq + 1);
  }
  return fields;
}

/** The git host's origin as git names it: the scheme, and the host with a port only when one is given. */
export function gitHostOrigin(gitHostUrl: string): { protocol: string; host: string } {
  const url = new URL(gitHostUrl);
  return { protocol: url.protocol.replace(/:$/, ''), host: url.host.toLowerCase() };
}

/** A request is served only for the git host itself: same scheme, same host and port. */
export function requestIsFor(request: GitCredentialRequest, gitHostUrl: string): boolean {
  const origin = gitHostOrigin(gitHostUrl);
  return request.protocol === origin.protocol && request.host?.toLowerCase() === origin.host;
}

/**
 * The reply to `get`. Gitea takes a personal access token as the password of HTTP
 * basic authentication whatever the user name, so the name is fixed. A value holding a
 * line break would add lines of its own to what git reads (a `host=` of another host, say),
 * a CR or NUL would not read back as written (git's own writer refuses a line break, and
 * from 2.48 a CR): such a reply is refused, never written.
 */
export function gitCredentialReply(request: GitCredentialRequest, token: string): string {
  const fields: Array<[string, string | undefined]> = [
    ['protocol', request.protocol],
    ['host', request.host],
    ['username', 'skiff'],
    ['password', token],
  ];
  for (const [key, value] of fields) {
    if (value === undefined || /[\r\n\0]/.test(value)) {
      throw new IdentityError(
        key === 'password'
          ? 'the stored git token holds a line break, CR or NUL, which git cannot take: run `skiff auth git` again'
          : `the git credential request has no ${key} that git could read back`,
        'GIT.BAD_REPLY',
      );
    }
  }
  return fields.map(([key, value]) => `${key}=${value}\n`).join('');
}

/** The shell words git runs a `!`-helper with: each single-quoted. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:@=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

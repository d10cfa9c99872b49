import { stripVTControlCharacters } from 'node:util';
import { isDomainError } from '../../../../domain/shared/errors';
import { EXIT, exitCodeFor } from './exit-codes';

/** How a failed command reports: one line (or `{"error": ...}` with --json) and its kind's exit code. */
export interface ErrorReport {
  readonly kind: string;
  readonly message: string;
  readonly exitCode: number;
}

/** The command that failed, for the hint after a usage error. */
export interface CommandContext {
  /** As typed: `task state`. */
  readonly name: string;
  /** Its first example, already rendered, if it has one. */
  readonly example?: string;
}

const MORE_HELP = 'See more help with --help';

/**
 * What oclif's parser throws: an error marked with oclif's usage exit code 2 (a
 * CLIParseError, or a plain CLIError such as "Flag --id expects a value"), or a flag's
 * own parse error, whose message oclif rewrites to "Parsing --flag\n\t<reason>\nSee more help...".
 */
interface ParseError extends Error {
  readonly args?: ReadonlyArray<{ name?: string; description?: string }>;
  readonly oclif?: { readonly exit?: number };
}

function isParseError(err: ParseError): boolean {
  return err.oclif?.exit === EXIT.usage || err.message.endsWith(`\n${MORE_HELP}`);
}

/**
 * oclif's message over several lines ("The following error occurred:", the reasons,
 * "See more help with --help") as one line that keeps every reason.
 */
function parseErrorLine(err: ParseError): string {
  const named = (err.args ?? []).filter((a) => a.name);
  if (named.length > 0) {
    const list = named.map((a) => (a.description ? `${a.name} (${a.description})` : a.name)).join(', ');
    return `missing required argument${named.length === 1 ? '' : 's'}: ${list}`;
  }
  const reasons = stripVTControlCharacters(err.message)
    .split('\n')
    .map((line) => line.trim().replace(/^Missing required flag (\S+)$/, 'missing required flag --$1'))
    .filter((line) => line !== '' && line !== MORE_HELP && !/^The following errors? occurred:$/.test(line));
  const flag = /^Parsing (--\S+)$/.exec(reasons[0] ?? '');
  if (flag !== null && reasons.length > 1) return `${flag[1]}: ${reasons.slice(1).join('; ')}`;
  return reasons.join('; ') || 'the command line cannot be parsed';
}

function usageHint(command: CommandContext | undefined): string {
  if (command === undefined) return '';
  const example = command.example === undefined ? '' : `; for example: ${command.example}`;
  return ` (see \`skiff ${command.name} --help\`${example})`;
}

export function errorReport(err: unknown, command?: CommandContext): ErrorReport {
  const error = err instanceof Error ? err : new Error(String(err));
  if (isParseError(error)) {
    return { kind: 'Usage', message: `${parseErrorLine(error)}${usageHint(command)}`, exitCode: EXIT.usage };
  }
  const exitCode = isDomainError(error)
    ? exitCodeFor(error.kind)
    : ((error as { oclif?: { exit?: number } }).oclif?.exit ?? EXIT.unexpected);
  return {
    kind: isDomainError(error) ? error.kind : 'Internal',
    message: error.message.split('\n')[0] || 'unknown error',
    exitCode,
  };
}

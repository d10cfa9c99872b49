import { FlagSpecs, FlagValues } from './flag-specs';

/**
 * Reads argv with a command's flag table as oclif would, for a fast path that skips
 * oclif. Only the plain forms: `--name value` or `--name=value` for a string flag (a
 * value neither empty nor starting with `-`, one of its options when it has them),
 * `--name` for a boolean, each at most once. Anything else (help, a short flag, an
 * argument, an unknown or repeated flag) returns undefined: the caller hands the
 * command to oclif, which owns help and usage errors. Defaults and `env` stay the
 * caller's, as the command applies them.
 */
export function parseFastArgv<S extends FlagSpecs>(specs: S, argv: readonly string[]): FlagValues<S> | undefined {
  const values: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([a-z][a-z-]*)(?:=(.*))?$/s.exec(argv[i]);
    if (match === null || !Object.hasOwn(specs, match[1]) || Object.hasOwn(values, match[1])) return undefined;
    const [, name, inline] = match;
    const spec = specs[name];
    if (spec.type === 'boolean') {
      if (inline !== undefined) return undefined;
      values[name] = true;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || value === '' || value.startsWith('-')) return undefined;
    if (spec.options !== undefined && !spec.options.includes(value)) return undefined;
    values[name] = value;
  }
  return values as FlagValues<S>;
}

import { InvalidArgumentError } from '../../../../../domain/shared/errors';

type KeyType = 'string' | 'boolean' | 'uint32';

/**
 * The keys of a TOML runtime options text: containerd.runc.v1.Options' fields by their Go names,
 * the names a runc handler's `options` table uses in containerd's config.toml. Matched without
 * regard to case, as containerd's TOML decoder matches them for runc.
 */
const KEYS = {
  BinaryName: 'string',
  SystemdCgroup: 'boolean',
  Root: 'string',
  NoPivotRoot: 'boolean',
  NoNewKeyring: 'boolean',
  ShimCgroup: 'string',
  IoUid: 'uint32',
  IoGid: 'uint32',
  CriuPath: 'string',
  CriuImagePath: 'string',
  CriuWorkPath: 'string',
} as const satisfies Record<string, KeyType>;

type TomlOptionKey = keyof typeof KEYS;

/** runtimeoptions.v1.Options' own fields: CRI's config_body is the whole `options` table, which may hold them. */
const IGNORED: readonly string[] = ['TypeUrl', 'ConfigPath', 'ConfigBody'];

/** What a TOML value of each key type is. */
interface ValueOf {
  string: string;
  boolean: boolean;
  uint32: number;
}

/** The options a TOML text sets, by key; a key it does not set is absent. */
export type TomlRuncOptions = { readonly [K in TomlOptionKey]?: ValueOf[(typeof KEYS)[K]] };

const BY_LOWER = new Map<string, TomlOptionKey>(
  (Object.keys(KEYS) as TomlOptionKey[]).map((key) => [key.toLowerCase(), key]),
);
const IGNORED_LOWER = new Set(IGNORED.map((key) => key.toLowerCase()));

/**
 * Reads a runtime options text in TOML (a file runtimeoptions.v1.Options' config_path names, or
 * its config_body). `source` names where it came from in errors: the file, or "the handler's
 * options". An unknown key, a value of the wrong type or a text that is not TOML is an
 * InvalidArgument naming the source and the key.
 */
export function parseTomlRuncOptions(text: string, source: string): TomlRuncOptions {
  const { parse, TomlError } = require('smol-toml') as typeof import('smol-toml', {
    with: { 'resolution-mode': 'require' },
  });
  let table: Record<string, unknown>;
  try {
    table = parse(text, { unsafeKeyBehaviour: 'throw' }) as Record<string, unknown>;
  } catch (err) {
    const why = err instanceof TomlError ? tomlErrorLine(err) : (err as Error).message;
    throw new InvalidArgumentError(`${source} is not TOML (${why})`, 'RUNC.OPTIONS_TOML');
  }
  const out: Record<string, string | boolean | number> = {};
  for (const [given, value] of Object.entries(table)) {
    const lower = given.toLowerCase();
    if (IGNORED_LOWER.has(lower)) continue;
    const key = BY_LOWER.get(lower);
    if (key === undefined) {
      throw new InvalidArgumentError(
        `${source}: unknown key ${JSON.stringify(given)}; the keys are ${Object.keys(KEYS).join(', ')} (containerd.runc.v1.Options)`,
        'RUNC.OPTIONS_TOML',
      );
    }
    if (key in out) {
      throw new InvalidArgumentError(
        `${source}: ${key} is given twice (as ${JSON.stringify(given)})`,
        'RUNC.OPTIONS_TOML',
      );
    }
    out[key] = checked(key, KEYS[key], value, source);
  }
  return out as TomlRuncOptions;
}

function checked(key: TomlOptionKey, type: KeyType, value: unknown, source: string): string | boolean | number {
  const ok =
    type === 'uint32'
      ? typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffffffff
      : typeof value === type;
  if (!ok) {
    const wanted =
      type === 'uint32' ? 'an integer from 0 to 4294967295' : type === 'string' ? 'a string' : 'true or false';
    throw new InvalidArgumentError(`${source}: ${key} must be ${wanted}, not ${describe(value)}`, 'RUNC.OPTIONS_TOML');
  }
  return value as string | boolean | number;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  return typeof value === 'object' && value !== null ? 'a table' : typeof value;
}

/** smol-toml's message is several lines (the text with a caret): its first, with the line and column. */
function tomlErrorLine(err: Error & { line: number; column: number }): string {
  const first = err.message.split('\n')[0].replace(/^Invalid TOML document: /, '');
  return `line ${err.line}, column ${err.column}: ${first}`;
}

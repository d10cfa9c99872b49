import { safeDomain } from '../../../../domain/login/auth/safe-domain';

/** The fields of a record that are secrets: kept in the OS keyring when the store is `keyring`. */
export const SECRET_FIELDS = ['access_token', 'refresh_token', 'id_token', 'gitea_token'] as const;
export type SecretField = (typeof SECRET_FIELDS)[number];

/**
 * The most characters one keyring entry holds; a longer secret is split into numbered
 * parts. The smallest backend is Windows' Credential Manager: 2560 bytes a credential
 * (CRED_MAX_CREDENTIAL_BLOB_SIZE), which the keyring library fills with UTF-16, so 1280
 * characters; 1024 keeps a margin. Secret Service and the Keychain take far more, but a
 * cache written on one machine's rules should not depend on them (id_tokens with many
 * claims pass 2 KiB).
 */
export const KEYRING_PART_CHARS = 1024;

/**
 * What the cache file holds instead of the secrets: the generation of the keyring
 * entries (new for each write, so the entries a file refers to are never rewritten in
 * place) and the number of parts of each secret present (0 for an empty one).
 */
export interface KeyringReference {
  readonly generation: string;
  readonly parts: Readonly<Partial<Record<SecretField, number>>>;
}

/** The keyring account of part `index` of `field` (under skiff's service). */
export function partAccount(domain: string, generation: string, field: SecretField, index: number): string {
  return `auth/${safeDomain(domain)}/${generation}/${field}/${index}`;
}

/** Parts of at most `size` characters, never splitting a character (a surrogate pair stays whole). */
export function splitSecret(value: string, size = KEYRING_PART_CHARS): string[] {
  const chars = Array.from(value);
  const parts: string[] = [];
  for (let i = 0; i < chars.length; i += size) parts.push(chars.slice(i, i + size).join(''));
  return parts;
}

/** A record's JSON split: the file's part (no secret, the reference last) and the keyring entries to write. */
export function toKeyring(
  json: Readonly<Record<string, string | undefined>>,
  domain: string,
  generation: string,
): { file: Record<string, unknown>; entries: Array<[account: string, secret: string]> } {
  const file: Record<string, unknown> = {};
  const parts: Partial<Record<SecretField, number>> = {};
  const entries: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(json)) {
    if (!(SECRET_FIELDS as readonly string[]).includes(key)) {
      file[key] = value;
      continue;
    }
    if (value === undefined) continue;
    const pieces = splitSecret(value);
    parts[key as SecretField] = pieces.length;
    pieces.forEach((piece, i) => entries.push([partAccount(domain, generation, key as SecretField, i), piece]));
  }
  file.keyring = { generation, parts } satisfies KeyringReference;
  return { file, entries };
}

/** The reference of a file's JSON object; undefined when the file holds its secrets itself. */
export function keyringReference(record: Readonly<Record<string, unknown>>): KeyringReference | undefined {
  const value = record.keyring;
  if (value === undefined || value === null) return undefined;
  const ref = value as { generation?: unknown; parts?: unknown };
  const bad = () => new Error('field keyring is not a keyring reference');
  if (typeof ref !== 'object' || typeof ref.generation !== 'string' || !/^[A-Za-z0-9.-]{1,64}$/.test(ref.generation))
    throw bad();
  if (typeof ref.parts !== 'object' || ref.parts === null) throw bad();
  const parts: Partial<Record<SecretField, number>> = {};
  for (const [field, count] of Object.entries(ref.parts as Record<string, unknown>)) {
    if (!(SECRET_FIELDS as readonly string[]).includes(field)) throw bad();
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > 1024) throw bad();
    parts[field as SecretField] = count;
  }
  return { generation: ref.generation, parts };
}

/** Every account a reference names. */
export function referenceAccounts(domain: string, ref: KeyringReference): string[] {
  return Object.entries(ref.parts).flatMap(([field, count]) =>
    Array.from({ length: count ?? 0 }, (_, i) => partAccount(domain, ref.generation, field as SecretField, i)),
  );
}

/**
 * The file's JSON object with its secrets put back from the keyring; an entry missing is
 * an Error naming the field (the record cannot be used).
 */
export async function withSecrets(
  record: Readonly<Record<string, unknown>>,
  domain: string,
  ref: KeyringReference,
  get: (account: string) => Promise<string | undefined>,
): Promise<Record<string, unknown>> {
  const { keyring: _reference, ...rest } = record;
  const whole: Record<string, unknown> = rest;
  for (const [field, count] of Object.entries(ref.parts)) {
    const pieces: string[] = [];
    for (let i = 0; i < (count ?? 0); i++) {
      const piece = await get(partAccount(domain, ref.generation, field as SecretField, i));
      if (piece === undefined) throw new Error(`refers to keyring entries that are missing (${field})`);
      pieces.push(piece);
    }
    whole[field] = pieces.join('');
  }
  return whole;
}

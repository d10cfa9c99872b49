/**
 * The preamble a pod keeper writes first on each of its connections to the serving process
 * (docs/keeper-protocol.md, "Connections to the serving process and their preamble"):
 * 0xff 'S' 'K' 'F', version, role, fields length u16 BE, then `name=value\0` fields. Read as a
 * ttrpc length, the magic is far over ttrpc's 4 MiB limit, so no ttrpc frame starts like it.
 */
const MAGIC = Buffer.from([0xff, 0x53, 0x4b, 0x46]);
const HEAD_LENGTH = 8;
const VERSION = 1;

export const KeeperRole = { Control: 1, Relay: 2, Forget: 3 } as const;

export interface KeeperPreamble {
  readonly role: number;
  readonly fields: Readonly<Record<string, string>>;
}

/** What a connection's first bytes say: plain ttrpc, a keeper's preamble, or not enough bytes yet. */
export type FirstBytes =
  | { readonly kind: 'plain'; readonly rest: Buffer }
  | { readonly kind: 'keeper'; readonly preamble: KeeperPreamble; readonly rest: Buffer }
  | { readonly kind: 'unknown-version'; readonly version: number }
  | { readonly kind: 'more' };

/** Judges the bytes received so far (all of them, from the first); `rest` is what follows the preamble. */
export function readFirstBytes(bytes: Buffer): FirstBytes {
  const seen = Math.min(bytes.length, MAGIC.length);
  if (!bytes.subarray(0, seen).equals(MAGIC.subarray(0, seen))) return { kind: 'plain', rest: bytes };
  if (bytes.length < HEAD_LENGTH) return { kind: 'more' };
  const version = bytes[4];
  if (version !== VERSION) return { kind: 'unknown-version', version };
  const end = HEAD_LENGTH + bytes.readUInt16BE(6);
  if (bytes.length < end) return { kind: 'more' };
  const fields: Record<string, string> = {};
  for (const field of bytes.toString('utf8', HEAD_LENGTH, end).split('\0')) {
    const eq = field.indexOf('=');
    if (eq > 0) fields[field.slice(0, eq)] = field.slice(eq + 1);
  }
  return { kind: 'keeper', preamble: { role: bytes[5], fields }, rest: bytes.subarray(end) };
}

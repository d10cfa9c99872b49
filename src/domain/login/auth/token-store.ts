import { ConfigurationError } from '../../shared/errors';
import { quoted } from '../../shared/quoted';

/**
 * Where a context keeps its tokens' secrets: `file` (the cache file, the default) or
 * `keyring` (the OS keyring; the cache file then holds the record without them).
 */
export type TokenStoreKind = 'file' | 'keyring';

export const TOKEN_STORE_KINDS: readonly TokenStoreKind[] = ['file', 'keyring'];

/**
 * Where a domain's token record is kept, as `auth status --json` and `auth token --json`
 * report it: `file` or `keyring` with the cache file's path (for `keyring`, the file holds
 * the record without its secrets), `memory` in the fakes of the tests.
 */
export interface TokenStore {
  readonly kind: TokenStoreKind | 'memory';
  readonly path: string;
}

/** A `token-store` value from a flag or the contexts file. */
export function tokenStoreKind(value: string, where: string): TokenStoreKind {
  if ((TOKEN_STORE_KINDS as readonly string[]).includes(value)) return value as TokenStoreKind;
  throw new ConfigurationError(
    `${where} must be ${TOKEN_STORE_KINDS.join(' or ')}, not ${quoted(value)}`,
    'CONFIG.BAD_TOKEN_STORE',
  );
}

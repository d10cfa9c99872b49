/**
 * Where a domain's token record is kept, as `auth status --json` and `auth token --json`
 * report it: `file` (the cache file's path) in skiff, `memory` in the fakes of the tests.
 */
export interface TokenStore {
  readonly kind: 'file' | 'memory';
  readonly path: string;
}

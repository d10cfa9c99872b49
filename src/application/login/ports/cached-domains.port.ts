export const CACHED_DOMAINS = Symbol('CachedDomains');

/** The domains that have a token cache file (`auth status` lists them all). */
export interface CachedDomains {
  /** Names that locate a cache file through TokenCache.read, sorted; `default` is the empty domain's file. */
  list(): Promise<string[]>;
}

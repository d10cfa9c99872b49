/** What every auth command may say about where to sign in: --domain and --context. */
export interface AuthTarget {
  readonly domain?: string;
  readonly context?: string;
}

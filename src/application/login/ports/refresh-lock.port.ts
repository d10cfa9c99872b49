export const REFRESH_LOCK = Symbol('RefreshLock');

/**
 * A lock per domain, held across processes while a token is refreshed, so that
 * commands started together refresh once (rotating refresh tokens allow only one use).
 */
export interface RefreshLock {
  withLock<T>(domain: string, work: () => Promise<T>): Promise<T>;
}

export const BROWSER = Symbol('Browser');

export interface Browser {
  /** Tries to open `url`; false when no browser could be started. Never throws. */
  open(url: string): Promise<boolean>;
}

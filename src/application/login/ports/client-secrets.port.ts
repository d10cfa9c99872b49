export const CLIENT_SECRETS = Symbol('ClientSecrets');

/**
 * A robot's client secret: read from its file, or, with no file, from the environment's
 * SKIFF_CLIENT_SECRET. Missing, unreadable or empty: a ConfigurationError naming where it
 * was looked for (never the secret).
 */
export interface ClientSecrets {
  read(file: string | undefined): Promise<string>;
  /** The file's absolute path (the cache keeps it for commands run elsewhere). */
  absolute(file: string): string;
}

export const SUBJECT_TOKENS = Symbol('SubjectTokens');

/**
 * The subject token of a token exchange (RFC 8693): the token a CI job already holds, read
 * from its file each time (CI systems rotate the file). Missing, unreadable, not a regular
 * file or empty: a ConfigurationError naming the file (never the token).
 */
export interface SubjectTokens {
  read(file: string): Promise<string>;
  /** The file's absolute path (the cache keeps it for commands run elsewhere). */
  absolute(file: string): string;
}

export const PROMPT = Symbol('Prompt');

export interface Prompt {
  /** Reads a secret from standard input (a line without echo on a terminal, all of it otherwise). */
  secret(question: string): Promise<string>;
}

export const RANDOM = Symbol('Random');

export interface Random {
  /** `count` cryptographically strong random bytes. */
  bytes(count: number): Uint8Array;
}

export const HASHER = Symbol('Hasher');

export interface Hasher {
  sha256(bytes: Uint8Array): Uint8Array;
}

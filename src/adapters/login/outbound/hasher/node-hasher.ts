import { createHash } from 'node:crypto';
import { Hasher } from '../../../../application/login/ports/hasher.port';

export class NodeHasher implements Hasher {
  sha256(bytes: Uint8Array): Uint8Array {
    return new Uint8Array(createHash('sha256').update(bytes).digest());
  }
}

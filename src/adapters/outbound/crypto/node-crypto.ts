import { createHash, randomBytes } from 'node:crypto';
import { Hasher } from '../../../application/ports/hasher.port';
import { Random } from '../../../application/ports/random.port';

export class NodeRandom implements Random {
  bytes(count: number): Uint8Array {
    return new Uint8Array(randomBytes(count));
  }
}

export class NodeHasher implements Hasher {
  sha256(bytes: Uint8Array): Uint8Array {
    return new Uint8Array(createHash('sha256').update(bytes).digest());
  }
}

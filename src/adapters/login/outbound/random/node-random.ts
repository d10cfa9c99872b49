import { randomBytes } from 'node:crypto';
import { Random } from '../../../../application/login/ports/random.port';

export class NodeRandom implements Random {
  bytes(count: number): Uint8Array {
    return new Uint8Array(randomBytes(count));
  }
}

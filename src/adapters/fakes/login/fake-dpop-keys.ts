import { generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import { PublicEcJwk } from '../../../domain/login/auth/dpop';
import { TokenStoreKind } from '../../../domain/login/auth/token-store';
import { DpopKey, DpopKeys } from '../../../application/login/ports/dpop-keys.port';

/**
 * DPoP keys in memory: real P-256 pairs (so proofs verify as the real adapter's do; the
 * contract test holds both to the same behaviour), by domain, with the store each was made for.
 */
export class FakeDpopKeys implements DpopKeys {
  readonly keys = new Map<string, { key: DpopKey; store: TokenStoreKind }>();
  readonly removed: string[] = [];

  async keyFor(domain: string, store: TokenStoreKind): Promise<DpopKey> {
    const kept = this.keys.get(domain);
    if (kept !== undefined) return kept.key;
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = privateKey.export({ format: 'jwk' }) as { x: string; y: string };
    const key = fakeKey({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, privateKey);
    this.keys.set(domain, { key, store });
    return key;
  }

  async existing(domain: string): Promise<DpopKey | undefined> {
    return this.keys.get(domain)?.key;
  }

  async remove(domain: string): Promise<boolean> {
    this.removed.push(domain);
    return this.keys.delete(domain);
  }
}

function fakeKey(publicJwk: PublicEcJwk, privateKey: KeyObject): DpopKey {
  return {
    publicJwk,
    sign: async (input) =>
      sign('sha256', Buffer.from(input, 'ascii'), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url'),
  };
}

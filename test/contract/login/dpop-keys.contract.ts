import { compactVerify, importJWK } from 'jose';
import { DpopKeys } from '../../../src/application/login/ports/dpop-keys.port';
import { TokenStoreKind } from '../../../src/domain/login/auth/token-store';

/** What every DpopKeys does, run against the fake (skiff-cli/testing) and the stored keys alike. */
export function dpopKeysContract(name: string, make: () => { keys: DpopKeys; cleanup(): void }): void {
  describe(`${name} honours the DpopKeys contract`, () => {
    let subject: { keys: DpopKeys; cleanup(): void };
    beforeEach(() => (subject = make()));
    afterEach(() => subject.cleanup());

    it.each<TokenStoreKind>(['file', 'keyring'])(
      'store %s: a P-256 key made on first use, the same one after, one per domain; its ES256 signatures verify with the public JWK',
      async (store) => {
        const { keys } = subject;
        await expect(keys.existing('example.com')).resolves.toBeUndefined();
        const key = await keys.keyFor('example.com', store);
        expect(Object.keys(key.publicJwk).sort()).toEqual(['crv', 'kty', 'x', 'y']);
        expect(key.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256' });
        expect((await keys.keyFor('example.com', store)).publicJwk).toEqual(key.publicJwk);
        expect((await keys.existing('example.com'))?.publicJwk).toEqual(key.publicJwk);
        expect((await keys.keyFor('other.org', store)).publicJwk).not.toEqual(key.publicJwk);
        const input = `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}`;
        const signature = await key.sign(input);
        expect(Buffer.from(signature, 'base64url')).toHaveLength(64);
        await expect(
          compactVerify(`${input}.${signature}`, await importJWK({ ...key.publicJwk }, 'ES256')),
        ).resolves.toBeDefined();
      },
    );

    it('remove: gone, a new key next time; false when there was none', async () => {
      const { keys } = subject;
      const key = await keys.keyFor('example.com', 'file');
      await expect(keys.remove('example.com')).resolves.toBe(true);
      await expect(keys.existing('example.com')).resolves.toBeUndefined();
      await expect(keys.remove('example.com')).resolves.toBe(false);
      expect((await keys.keyFor('example.com', 'file')).publicJwk).not.toEqual(key.publicJwk);
    });
  });
}

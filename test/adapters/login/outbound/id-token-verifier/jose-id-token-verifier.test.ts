import * as jose from 'jose';
import { JoseIdTokenVerifier } from '../../../../../src/adapters/login/outbound/id-token-verifier/jose-id-token-verifier';
import { HttpClient } from '../../../../../src/adapters/login/helpers/http-client';
import { FakeIdTokenVerifier, fakeSignedJwt } from '../../../../../src/adapters/fakes/login/fake-id-token-verifier';
import { idTokenVerifierContract, Signer } from '../../../../contract/login/id-token-verifier.contract';
import { HttpStub } from '../../../../support/http-stub';

idTokenVerifierContract('FakeIdTokenVerifier', async () => {
  const verifier = new FakeIdTokenVerifier();
  verifier.published = new Map([['k1', 'k1']]);
  const keys: Record<Signer, { kid: string; secret: string }> = {
    provider: { kid: 'k1', secret: 'k1' },
    stranger: { kid: 'stranger', secret: 'stranger' },
    impostor: { kid: 'k1', secret: 'impostor' },
    next: { kid: 'k2', secret: 'k2' },
  };
  return {
    verifier,
    jwksUri: 'https://auth.example.com/jwks',
    sign: async (claims, signer = 'provider') => fakeSignedJwt(claims, keys[signer]),
    rotate: async () => {
      verifier.published.set('k2', 'k2');
    },
    failJwks: (status) => (verifier.jwksStatus = status),
    jwksFetches: () => verifier.fetches.length,
    close: async () => undefined,
  };
});

type KeyPair = Awaited<ReturnType<typeof jose.generateKeyPair>>;

async function keyPair(alg: string): Promise<KeyPair> {
  return jose.generateKeyPair(alg, { extractable: true });
}

describe('with RSA and EC keys made by jose', () => {
  // RSA key generation is slow on a loaded machine: one set for the whole file.
  let pairs: Record<Signer, KeyPair>;
  beforeAll(async () => {
    const [provider, stranger, impostor, next] = await Promise.all([
      keyPair('RS256'),
      keyPair('RS256'),
      keyPair('RS256'),
      keyPair('ES256'),
    ]);
    pairs = { provider, stranger, impostor, next };
  });

  idTokenVerifierContract('JoseIdTokenVerifier over HTTP', async () => {
    const stub = await HttpStub.start();
    const kids: Record<Signer, [string, string]> = {
      provider: ['k1', 'RS256'],
      stranger: ['stranger', 'RS256'],
      impostor: ['k1', 'RS256'],
      next: ['k2', 'ES256'],
    };
    const jwk = async (signer: Signer) => ({
      ...(await jose.exportJWK(pairs[signer].publicKey)),
      kid: kids[signer][0],
      alg: kids[signer][1],
      use: 'sig',
    });
    let published = [await jwk('provider')];
    let failure: number | undefined;
    stub.on('GET /jwks', () => (failure === undefined ? { body: { keys: published } } : { status: failure }));
    return {
      verifier: new JoseIdTokenVerifier(new HttpClient()),
      jwksUri: `${stub.url}/jwks`,
      sign: async (claims, signer = 'provider') => {
        const [kid, alg] = kids[signer];
        const defined = Object.fromEntries(Object.entries(claims).filter(([, v]) => v !== undefined));
        return new jose.CompactSign(new TextEncoder().encode(JSON.stringify(defined)))
          .setProtectedHeader({ alg, kid, typ: 'JWT' })
          .sign(pairs[signer].privateKey);
      },
      rotate: async () => {
        published = [...published, await jwk('next')];
      },
      failJwks: (status) => (failure = status),
      jwksFetches: () => stub.requests.filter((r) => r.path === '/jwks').length,
      close: () => stub.close(),
    };
  });
});

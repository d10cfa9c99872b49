import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, compactVerify, importJWK, type JWK } from 'jose';
import { DpopProof } from '../../../../src/application/login/auth/dpop-proof.use-case';
import { GetSession } from '../../../../src/application/login/auth/get-session.use-case';
import { ListBoards } from '../../../../src/application/login/boards/list-boards.use-case';
import { GetToken } from '../../../../src/application/login/auth/get-token.use-case';
import { Logout } from '../../../../src/application/login/auth/logout.use-case';
import { SsoLogin } from '../../../../src/application/login/auth/sso-login.use-case';
import { ConfigurationError, IdentityError, UsageError } from '../../../../src/domain/shared/errors';
import { configWith, SkiffTestbed, skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { idToken, issueWithNonce, NOW } from '../../../support/tokens';

/** DPoP (RFC 9449) in the use cases: docs/login-contract.md, "DPoP". */

const asking = () => configWith({ name: 'local', domain: 'example.com', dpop: 'always' });

/** A proof, verified with the key its header carries: its header and claims. */
async function opened(proof: string) {
  const header = JSON.parse(Buffer.from(proof.split('.')[0], 'base64url').toString('utf8')) as { jwk: JWK };
  const { payload, protectedHeader } = await compactVerify(proof, await importJWK(header.jwk, 'ES256'));
  return {
    header: protectedHeader,
    claims: JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>,
  };
}

function userCompletes(h: SkiffTestbed) {
  h.browser.onOpen = (url) => {
    issueWithNonce(h.provider, url);
    h.listener.deliver(`/callback?code=the-code&state=${new URL(url).searchParams.get('state')}`);
  };
}

const boundReply = () => ({
  accessToken: 'access-9',
  refreshToken: 'refresh-9',
  expiresIn: 900,
  idToken: idToken({ email: 'alice@example.com' }),
  tokenType: 'DPoP' as const,
});

describe('DPoP at the token endpoint', () => {
  it('the context asks: the code exchange carries a proof of a new P-256 key for POST <token endpoint>; the record keeps token_type DPoP', async () => {
    const h = skiffTestbed(asking());
    h.provider.tokenReplies = [boundReply()];
    userCompletes(h);
    await h.get(SsoLogin).execute({ target: {}, openBrowser: true });
    const call = h.provider.tokenCalls[0];
    expect(call.grant).toBe('authorization_code');
    const proof = call.grant === 'authorization_code' ? call.dpop : undefined;
    const { header, claims } = await opened(proof as string);
    expect(header).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256' } });
    expect(Object.keys(header.jwk as object).sort()).toEqual(['crv', 'kty', 'x', 'y']);
    expect(claims).toMatchObject({ htm: 'POST', htu: 'https://auth.example.com/token', iat: NOW.getTime() / 1000 });
    expect(claims.jti).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(claims.ath).toBeUndefined();
    expect(h.dpopKeys.keys.get('example.com')?.store).toBe('file');
    expect(h.cache.records.get('example.com')?.tokenType).toBe('DPoP');
  });

  it('the context does not ask: no key made, no proof, a bearer record (the provider only offering DPoP changes nothing)', async () => {
    const h = skiffTestbed();
    h.provider.metadata = { ...h.provider.metadata, dpopSigningAlgValuesSupported: ['ES256'] };
    h.provider.tokenReplies = [{ ...boundReply(), tokenType: undefined }];
    userCompletes(h);
    await h.get(SsoLogin).execute({ target: {}, openBrowser: true });
    const call = h.provider.tokenCalls[0];
    expect(call.grant === 'authorization_code' && call.dpop).toBeUndefined();
    expect(h.dpopKeys.keys.size).toBe(0);
    expect(h.cache.records.get('example.com')?.tokenType).toBeUndefined();
  });

  it('a bound record refreshes with a proof of the same key (whatever the context says now), each proof with its own jti', async () => {
    const h = skiffTestbed();
    const key = await h.dpopKeys.keyFor('example.com', 'file');
    h.signIn({ expiresAt: new Date(NOW.getTime() - 1000), tokenType: 'DPoP' });
    h.provider.tokenReplies = [{ accessToken: 'access-10', tokenType: 'DPoP' }];
    await expect(h.get(GetToken).execute({})).resolves.toBe('access-10');
    const call = h.provider.tokenCalls[0];
    const proof = call.grant === 'refresh_token' ? (call.dpop as string) : '';
    const { header } = await opened(proof);
    expect(header.jwk).toEqual(key.publicJwk);
    expect(h.cache.records.get('example.com')?.tokenType).toBe('DPoP');
  });

  it('a bound record whose key is gone: the refresh fails with the warning naming it, then session expired', async () => {
    const h = skiffTestbed();
    h.signIn({ expiresAt: new Date(NOW.getTime() - 1000), tokenType: 'DPoP' });
    const err = await h
      .get(GetToken)
      .execute({})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdentityError);
    expect(h.notifier.warnings.join('\n')).toContain('bound to a DPoP key that is no longer kept');
    expect(h.provider.tokenCalls).toEqual([]);
  });

  it('logout removes the domain key', async () => {
    const h = skiffTestbed();
    await h.dpopKeys.keyFor('example.com', 'file');
    h.signIn({ tokenType: 'DPoP', refreshToken: '' });
    await h.get(Logout).execute({});
    expect(h.dpopKeys.keys.size).toBe(0);
  });
});

describe('auth token --dpop-proof', () => {
  it('a proof for the request with the token it is bound to: htm, htu without query or fragment, ath of the token, a fresh jti each time', async () => {
    const h = skiffTestbed();
    const key = await h.dpopKeys.keyFor('example.com', 'file');
    h.signIn({ tokenType: 'DPoP', accessToken: 'the-bound-token' });
    const url = 'https://api.example.com/v1/things?page=2#top';
    const first = await h.get(DpopProof).execute({ target: {}, method: 'GET', url });
    const second = await h.get(DpopProof).execute({ target: {}, method: 'GET', url });
    const a = await opened(first);
    const b = await opened(second);
    expect(a.header.jwk).toEqual(key.publicJwk);
    expect(a.claims).toMatchObject({
      htm: 'GET',
      htu: 'https://api.example.com/v1/things',
      ath: createHash('sha256').update('the-bound-token').digest('base64url'),
    });
    expect(a.claims.jti).not.toBe(b.claims.jti);
    // The jwk's thumbprint is what a provider binds the token to (RFC 7638, RFC 9449 §6).
    expect(await calculateJwkThumbprint(a.header.jwk as JWK)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('a bearer token: a configuration error naming config set --dpop; a bad method or URL: a usage error before anything is read', async () => {
    const h = skiffTestbed();
    h.signIn();
    await expect(h.get(DpopProof).execute({ target: {}, method: 'GET', url: 'https://a.example/' })).rejects.toThrow(
      ConfigurationError,
    );
    for (const [method, url] of [
      ['GET /', 'https://a.example/'],
      ['GET', 'a.example/path'],
      ['GET', 'ftp://a.example/'],
      ['GET', 'https://a.example/\n'],
    ]) {
      await expect(h.get(DpopProof).execute({ target: {}, method, url })).rejects.toThrow(UsageError);
    }
  });
});

describe('every call skiff makes with a bound token carries a fresh proof', () => {
  it("a plugin's session: DPoP headers with a new proof per request for a bound token, Bearer for another", async () => {
    const h = skiffTestbed();
    await h.dpopKeys.keyFor('example.com', 'file');
    h.signIn({ tokenType: 'DPoP', accessToken: 'bound' });
    const session = await h.get(GetSession).execute({});
    expect(session.tokenType).toBe('DPoP');
    const one = await session.authorization('GET', 'https://api.example.com/me?x=1');
    const two = await session.authorization('GET', 'https://api.example.com/me?x=1');
    expect(one.Authorization).toBe('DPoP bound');
    const claims = (await opened(one.DPoP)).claims;
    expect(claims).toMatchObject({
      htm: 'GET',
      htu: 'https://api.example.com/me',
      ath: createHash('sha256').update('bound').digest('base64url'),
    });
    expect(claims.jti).not.toBe((await opened(two.DPoP)).claims.jti);

    const bearer = skiffTestbed();
    bearer.signIn({ accessToken: 'plain' });
    const plain = await bearer.get(GetSession).execute({});
    expect(plain.tokenType).toBe('Bearer');
    await expect(plain.authorization('GET', 'https://api.example.com/')).resolves.toEqual({
      Authorization: 'Bearer plain',
    });
  });

  it('boards: the exchange of a bound token carries a proof for POST <boards>/access-tokens/exchange-using-token with its ath', async () => {
    const h = skiffTestbed();
    await h.dpopKeys.keyFor('example.com', 'file');
    h.signIn({ tokenType: 'DPoP', accessToken: 'bound' });
    await h.get(ListBoards).execute({});
    expect(h.boardTool.exchanges).toEqual(['bound']);
    const { claims } = await opened(h.boardTool.exchangeProofs[0]);
    expect(claims).toMatchObject({
      htm: 'POST',
      htu: 'https://projects.example.com/api/access-tokens/exchange-using-token',
      ath: createHash('sha256').update('bound').digest('base64url'),
    });
  });
});

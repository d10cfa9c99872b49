import { lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliHome } from '../support/skiff-home';
import { DpopResourceStandIn } from '../support/dpop-resource-stand-in';
import { httpRequest, OidcServer } from '../support/oidc';
import { signIn, useProvider } from '../support/sign-in';

// DPoP (RFC 9449) against oidc-provider with DPoP required for skiff-cli (dpop_bound_access_tokens),
// with and without a server nonce, and a resource stand-in that checks every proof
// (docs/login-contract.md, "DPoP").
let oidc: OidcServer;
let nonces: OidcServer;
let resource: DpopResourceStandIn;
const homes: CliHome[] = [];

beforeAll(async () => {
  [oidc, nonces] = await Promise.all([
    OidcServer.start({ OIDC_DPOP_REQUIRED: '1' }),
    OidcServer.start({ OIDC_DPOP_REQUIRED: '1', OIDC_DPOP_NONCE: '1' }),
  ]);
  resource = await DpopResourceStandIn.start(oidc.issuer);
});
afterAll(async () => {
  for (const home of homes) home.remove();
  await Promise.all([oidc?.stop(), nonces?.stop(), resource?.stop()]);
});

async function home(provider: OidcServer, dpop = true): Promise<CliHome> {
  const h = new CliHome();
  homes.push(h);
  await useProvider(h, provider);
  if (dpop)
    expect(await h.run(['config', 'set', '--dpop'])).toMatchObject({
      code: 0,
      stdout: 'Context e2e now always uses DPoP.\n',
    });
  return h;
}

async function proof(h: CliHome, method: string, url: string): Promise<string> {
  const result = await h.run(['auth', 'token', '--dpop-proof', '--method', method, '--url', url]);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return result.stdout.trim();
}

const call = (url: string, token: string, dpop: string, method = 'GET') =>
  httpRequest(url, { method, headers: { Authorization: `DPoP ${token}`, DPoP: dpop } });

/** The record's secrets and the key's private member: none may appear in any output. */
function secrets(h: CliHome): string[] {
  const record = JSON.parse(readFileSync(h.cacheFile('e2e.test'), 'utf8')) as Record<string, string>;
  const key = JSON.parse(readFileSync(join(h.authDir, 'e2e.test.dpop.jwk'), 'utf8')) as { d: string };
  return [key.d, record.refresh_token];
}

describe('DPoP-bound tokens', () => {
  it('sign-in: a proof on the code exchange, token_type DPoP kept, the key in a 0600 file beside the cache', async () => {
    const h = await home(oidc);
    const { result } = await signIn(h, ['auth', 'sso']);
    expect(result).toMatchObject({ code: 0, stdout: 'Logged in to e2e.test as alice@example.com.\n' });
    const record = JSON.parse(readFileSync(h.cacheFile('e2e.test'), 'utf8')) as Record<string, string>;
    expect(record.token_type).toBe('DPoP');
    const keyFile = join(h.authDir, 'e2e.test.dpop.jwk');
    expect(lstatSync(keyFile).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(readFileSync(keyFile, 'utf8')) as object).sort()).toEqual([
      'crv',
      'd',
      'kty',
      'x',
      'y',
    ]);
    for (const secret of secrets(h)) expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
  });

  it('a resource that checks the proof: accepted with a fresh proof; a replayed jti, another method or URL, a bearer scheme refused', async () => {
    const h = await home(oidc);
    expect((await signIn(h, ['auth', 'sso'])).result.code).toBe(0);
    const token = (await h.run(['auth', 'token'])).stdout.trim();
    const url = `${resource.url}/things?page=2`;
    const fresh = await proof(h, 'GET', url);
    expect((await call(url, token, fresh)).status).toBe(200);
    expect(await call(url, token, fresh)).toMatchObject({ status: 401, body: '{"error":"jti replay"}' });
    expect(await call(url, token, await proof(h, 'POST', url))).toMatchObject({ status: 401, body: '{"error":"htm"}' });
    expect(await call(url, token, await proof(h, 'GET', `${resource.url}/other`))).toMatchObject({
      status: 401,
      body: '{"error":"htu"}',
    });
    expect((await httpRequest(url, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
    for (const secret of secrets(h)) expect(fresh).not.toContain(secret);
  });

  it('the refresh carries a proof of the same key; the new token is bound to it and accepted', async () => {
    const h = await home(oidc);
    expect((await signIn(h, ['auth', 'sso'])).result.code).toBe(0);
    const file = h.cacheFile('e2e.test');
    const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    writeFileSync(
      file,
      `${JSON.stringify({ ...record, expires_at: new Date(Date.now() - 1000).toISOString() }, null, 2)}\n`,
      {
        mode: 0o600,
      },
    );
    const before = await oidc.grants('refresh_token');
    const refreshed = await h.run(['auth', 'token']);
    expect(refreshed.code).toBe(0);
    expect(await oidc.grants('refresh_token')).toBe(before + 1);
    const token = refreshed.stdout.trim();
    expect(token).not.toBe(record.access_token);
    expect(JSON.parse(readFileSync(file, 'utf8')).token_type).toBe('DPoP');
    const url = `${resource.url}/after-refresh`;
    expect((await call(url, token, await proof(h, 'GET', url))).status).toBe(200);
  });

  it("a provider that demands a server nonce: the token endpoint's use_dpop_nonce answered once with its DPoP-Nonce, sign-in and refresh", async () => {
    const h = await home(nonces);
    expect((await signIn(h, ['auth', 'sso'])).result.code).toBe(0);
    const file = h.cacheFile('e2e.test');
    const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(record.token_type).toBe('DPoP');
    writeFileSync(
      file,
      `${JSON.stringify({ ...record, expires_at: new Date(Date.now() - 1000).toISOString() }, null, 2)}\n`,
      {
        mode: 0o600,
      },
    );
    expect((await h.run(['auth', 'token'])).code).toBe(0);
    const stats = await nonces.stats();
    expect(stats.token['authorization_code:400']).toBe(1);
    expect(stats.token['authorization_code:200']).toBe(1);
    expect(stats.token['refresh_token:200']).toBe(1);
  });

  it('the context not asking, against a provider that requires DPoP: the refused code exchange, exit 4, one line, nothing cached', async () => {
    const h = await home(oidc, false);
    const { result } = await signIn(h, ['auth', 'sso']);
    expect(result.code).toBe(4);
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(
      /^skiff: the identity provider at \S+ refused the code exchange: HTTP 400/,
    );
    expect(() => lstatSync(h.cacheFile('e2e.test'))).toThrow();
  });

  it('--dpop-proof for a bearer token is exit 3 naming config set --dpop; a bad --url is exit 2', async () => {
    const bearer = new CliHome();
    homes.push(bearer);
    const plain = await OidcServer.start();
    try {
      await useProvider(bearer, plain);
      expect((await signIn(bearer, ['auth', 'sso'])).result.code).toBe(0);
      const result = await bearer.run([
        'auth',
        'token',
        '--dpop-proof',
        '--method',
        'GET',
        '--url',
        'https://api.example/',
      ]);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('skiff config set --dpop');
      const bad = await bearer.run(['auth', 'token', '--dpop-proof', '--method', 'GET', '--url', 'api.example/x']);
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      await plain.stop();
    }
  });
});

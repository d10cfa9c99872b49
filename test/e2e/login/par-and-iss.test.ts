import { existsSync } from 'node:fs';
import { CliHome, finished, waitForStderr } from '../support/skiff-home';
import { completeAuthorization, httpRequest, OidcServer } from '../support/oidc';
import { AUTHORIZATION_URL, signIn, useProvider } from '../support/sign-in';
import { freePort } from '../support/stand-ins';
import { SEED_AUTHORIZATION_PARAMETERS } from '../../support/seed-authorization';

// Pushed authorization requests (RFC 9126) and the issuer of the authorization response
// (RFC 9207) against oidc-provider, which has PAR on and sends `iss` in every callback
// (docs/login-contract.md, "Pushed authorization requests" and SSO step 9).
let oidc: OidcServer;
let requiring: OidcServer;
const homes: CliHome[] = [];

beforeAll(async () => {
  [oidc, requiring] = await Promise.all([OidcServer.start(), OidcServer.start({ OIDC_REQUIRE_PAR: '1' })]);
});
afterAll(async () => {
  for (const home of homes) home.remove();
  await Promise.all([oidc?.stop(), requiring?.stop()]);
});

async function home(provider: OidcServer): Promise<CliHome> {
  const h = new CliHome();
  homes.push(h);
  await useProvider(h, provider);
  return h;
}

describe('pushed authorization requests', () => {
  it('a provider that requires them: pushed, the browser opens client_id and request_uri only, signed in', async () => {
    const h = await home(requiring);
    const { result, authorizationUrl } = await signIn(h, ['auth', 'sso']);
    expect(result).toMatchObject({ code: 0, stdout: 'Logged in to e2e.test as alice@example.com.\n' });
    const url = new URL(authorizationUrl);
    expect([...url.searchParams.keys()]).toEqual(['client_id', 'request_uri']);
    expect(url.searchParams.get('client_id')).toBe('skiff-cli');
    expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect((await requiring.stats()).par).toEqual({ 201: 1 });
  });

  it('a provider that offers them without requiring: the URL of the seed, nothing pushed', async () => {
    const h = await home(oidc);
    const before = (await oidc.stats()).par[201] ?? 0;
    const { result, authorizationUrl } = await signIn(h, ['auth', 'sso']);
    expect(result.code).toBe(0);
    expect([...new URL(authorizationUrl).searchParams.keys()]).toEqual(SEED_AUTHORIZATION_PARAMETERS);
    expect((await oidc.stats()).par[201] ?? 0).toBe(before);
  });

  it('config set --par: pushed where the provider only offers them; --no-par: the seed URL again', async () => {
    const h = await home(oidc);
    expect(await h.run(['config', 'set', '--par'])).toMatchObject({
      code: 0,
      stdout: 'Context e2e now always uses PAR.\n',
    });
    const pushed = await signIn(h, ['auth', 'sso']);
    expect(pushed.result.code).toBe(0);
    expect([...new URL(pushed.authorizationUrl).searchParams.keys()]).toEqual(['client_id', 'request_uri']);
    expect((await h.run(['config', 'set', '--no-par'])).code).toBe(0);
    const plain = await signIn(h, ['auth', 'sso']);
    expect(new URL(plain.authorizationUrl).searchParams.get('code_challenge_method')).toBe('S256');
  });
});

describe('the issuer of the callback (RFC 9207)', () => {
  /** Signs in, but hands the CLI the callback the provider sent, changed by `forge` (a mix-up). */
  async function withCallback(h: CliHome, forge: (callback: URL) => void) {
    const port = await freePort();
    const child = h.spawn(['auth', 'sso', '--no-browser', '--port', String(port)]);
    const done = finished(child);
    child.stdin?.end();
    const [, authorizationUrl] = await waitForStderr(child, AUTHORIZATION_URL);
    const callback = new URL(await completeAuthorization(authorizationUrl));
    const iss = callback.searchParams.get('iss');
    forge(callback);
    const page = await httpRequest(callback.toString());
    return { iss, page, result: await done };
  }

  it('oidc-provider sends the discovered issuer: accepted (every sign-in of these tests checks it)', async () => {
    const h = await home(oidc);
    const { iss, page, result } = await withCallback(h, () => undefined);
    expect(iss).toBe(oidc.issuer);
    expect(page.status).toBe(200);
    expect(result.code).toBe(0);
  });

  it.each([
    ['without iss', (u: URL) => u.searchParams.delete('iss'), /the callback has no iss parameter/],
    ['with another issuer', (u: URL) => u.searchParams.set('iss', 'https://evil.example'), /names another issuer/],
  ])('a callback %s: exit 4, one line naming the mix-up, the browser told, nothing cached', async (_, forge, why) => {
    const h = await home(oidc);
    const { page, result } = await withCallback(h, forge);
    expect(page.status).toBe(400);
    expect(result.code).toBe(4);
    const last = result.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(why);
    expect(last).toContain(`not the issuer ${oidc.issuer} this sign-in was sent to: possible mix-up attack (RFC 9207)`);
    expect(last).not.toContain('evil');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(h.cacheFile('e2e.test'))).toBe(false);
  });
});

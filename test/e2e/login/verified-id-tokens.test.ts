import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { CliHome } from '../support/skiff-home';
import { IdTokenMode, OidcServer } from '../support/oidc';
import { signIn, useProvider } from '../support/sign-in';

// The real oidc-provider signs its id_tokens with the key of its JWKS; as a stand-in it
// re-signs them spoiled in one way (oidc-server.mjs, /__id_token). skiff must refuse each,
// exit 4 naming what failed, and store nothing (docs/login-contract.md, "Verified id_tokens").
let oidc: OidcServer;
const homes: CliHome[] = [];

beforeAll(async () => {
  oidc = await OidcServer.start();
});
afterAll(async () => {
  for (const home of homes) home.remove();
  await oidc?.stop();
});
afterEach(() => oidc.idTokens('good'));

async function home(): Promise<CliHome> {
  const h = new CliHome();
  homes.push(h);
  await useProvider(h, oidc);
  return h;
}

describe('id_tokens verified on receipt against a real provider', () => {
  it('a normal sign-in: the id_token verifies against the JWKS, the nonce comes back, the cache is written', async () => {
    const h = await home();
    const { result, authorizationUrl } = await signIn(h, ['auth', 'sso']);
    expect(result).toMatchObject({ code: 0, stdout: 'Logged in to e2e.test as alice@example.com.\n' });
    expect(new URL(authorizationUrl).searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(existsSync(h.cacheFile('e2e.test'))).toBe(true);
  });

  it.each<[IdTokenMode, RegExp]>([
    ['foreign-key', /bad signature: it is signed with a key that is not in the provider's JWKS \(key id "outsider"\)/],
    ['impostor', /bad signature: it does not verify with the provider's key \(key id "e2e-1"\)/],
    ['audience', /wrong audience: "another-client" does not contain "skiff-cli"/],
    ['issuer', /wrong issuer: "https:\/\/evil\.example", expected "http:\/\/127\.0\.0\.1:\d+"/],
    ['expired', /expired at \S+ \(now \S+, 60 s leeway\)/],
    ['no-nonce', /nonce mismatch: it carries no nonce/],
    ['nonce', /nonce mismatch: not the nonce of this sign-in/],
  ])('%s: refused, exit 4, one line naming it, nothing cached', async (mode, reason) => {
    const h = await home();
    await oidc.idTokens(mode);
    const { result } = await signIn(h, ['auth', 'sso']);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    const last = result.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(/^skiff: the id_token from the identity provider was refused: /);
    expect(last).toMatch(reason);
    expect(last).toContain('nothing was stored');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(h.cacheFile('e2e.test'))).toBe(false);
  });

  it('a refresh whose id_token is refused: the warning names it, session expired (exit 4), the cache unchanged', async () => {
    const h = await home();
    expect((await signIn(h, ['auth', 'sso'])).result.code).toBe(0);
    const file = h.cacheFile('e2e.test');
    const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    record.expires_at = new Date(Date.now() - 1000).toISOString();
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
    const before = readFileSync(file, 'utf8');
    await oidc.idTokens('audience');
    const result = await h.run(['auth', 'token']);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/skiff: warning: token refresh failed: the id_token .* refused: wrong audience/);
    expect(result.stderr.trim().split('\n').at(-1)).toBe('skiff: session expired: run `skiff auth login`');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, KeyLike, SignJWT } from 'jose';
import { CliHome, CliResult } from '../support/skiff-home';
import { OidcServer } from '../support/oidc';
import { useProvider } from '../support/sign-in';

/** A token exchange's cache file: the specification's fields (no id_token or git token) and its subject. */
const EXCHANGE_KEYS = [
  'access_token',
  'refresh_token',
  'expires_at',
  'domain',
  'client_id',
  'subject_token_file',
  'subject_token_type',
];

/** The stand-in CI issuer's key: the provider trusts its public half (OIDC_EXCHANGE_JWK). */
let ciKey: { publicKey: KeyLike; privateKey: KeyLike };
/** A key the provider does not trust. */
let strangerKey: { publicKey: KeyLike; privateKey: KeyLike };

/** A CI job's OIDC token for the provider at `oidc`, as GitHub Actions or GitLab would mint one. */
function ciToken(oidc: OidcServer, sub: string, key = ciKey.privateKey): Promise<string> {
  return new SignJWT({ repository: 'skiff' })
    .setProtectedHeader({ alg: 'ES256', kid: 'ci-1' })
    .setIssuer('https://ci.e2e.test')
    .setAudience(oidc.issuer)
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(key);
}

const cacheOf = (home: CliHome) =>
  JSON.parse(readFileSync(home.cacheFile('e2e.test'), 'utf8')) as Record<string, string>;

function expire(home: CliHome): void {
  writeFileSync(home.cacheFile('e2e.test'), JSON.stringify({ ...cacheOf(home), expires_at: '2020-01-01T00:00:00Z' }));
}

/** The token in none of the forms an error could carry it in. */
function expectNoToken(result: CliResult, token: string): void {
  const all = result.stdout + result.stderr;
  for (const form of [token, encodeURIComponent(token), Buffer.from(token).toString('base64'), token.split('.')[1]]) {
    expect(all).not.toContain(form);
  }
}

function expectOneLine(result: CliResult, code: number, line: RegExp): void {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr.trimEnd()).toMatch(line);
}

async function exchangeHome(oidc: OidcServer): Promise<{ home: CliHome; tokenFile: string }> {
  const home = new CliHome();
  await useProvider(home, oidc);
  const tokenFile = join(home.dir, 'ci-token');
  writeFileSync(tokenFile, `${await ciToken(oidc, 'repo:skiff:ref:main')}\n`, { mode: 0o600 });
  return { home, tokenFile };
}

const login = (home: CliHome, args: string[]) => home.run(['auth', 'login', ...args]);

describe('auth login --subject-token-file: a robot signs in with a token exchange (real provider)', () => {
  let oidc: OidcServer;
  beforeAll(async () => {
    ciKey = await generateKeyPair('ES256');
    strangerKey = await generateKeyPair('ES256');
    oidc = await OidcServer.start({ OIDC_EXCHANGE_JWK: JSON.stringify(await exportJWK(ciKey.publicKey)) });
  });
  afterAll(() => oidc.stop());

  it('signs in; token, status, kube-credential serve it; on expiry the rotated file is exchanged again', async () => {
    const { home, tokenFile } = await exchangeHome(oidc);
    const subjectToken = readFileSync(tokenFile, 'utf8').trim();
    const result = await login(home, ['--subject-token-file', tokenFile]);
    expect(result).toEqual({
      code: 0,
      stdout: `Logged in to e2e.test with the subject token of ${tokenFile}.\n`,
      stderr: '',
    });
    const record = cacheOf(home);
    expect(Object.keys(record)).toEqual(EXCHANGE_KEYS);
    expect(record).toMatchObject({
      refresh_token: '',
      domain: 'e2e.test',
      client_id: 'skiff-cli',
      subject_token_file: tokenFile,
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    });
    expect(readFileSync(home.cacheFile('e2e.test'), 'utf8')).not.toContain(subjectToken);

    expect(await home.run(['auth', 'token'])).toEqual({ code: 0, stdout: `${record.access_token}\n`, stderr: '' });
    expect(JSON.parse((await home.run(['auth', 'token', '--json'])).stdout)).toMatchObject({
      token: record.access_token,
      scopes: null,
      signIn: 'token-exchange',
    });
    const status = await home.run(['auth', 'status', '--json', '--domain', 'e2e.test']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      loggedIn: true,
      identity: `subject token ${tokenFile}`,
      scopes: null,
      signIn: 'token-exchange',
      tokenStore: { kind: 'file', path: home.cacheFile('e2e.test') },
    });
    expect(status.stdout).not.toContain(record.access_token);
    const text = (await home.run(['auth', 'status', '--domain', 'e2e.test'])).stdout.split('\n');
    expect(text).toContain(`Logged in as subject token ${tokenFile}`);
    expect(text).toContain('Signed in with: token exchange');
    const kube = await home.run(['auth', 'kube-credential']);
    expect(JSON.parse(kube.stdout).status.token).toBe(record.access_token);

    // The CI system rotates the file: the next exchange reads the new token.
    expire(home);
    writeFileSync(tokenFile, await ciToken(oidc, 'repo:skiff:ref:rotated'));
    const again = await home.run(['auth', 'token']);
    expect(again.code).toBe(0);
    const renewed = cacheOf(home);
    expect(again.stdout).toBe(`${renewed.access_token}\n`);
    expect(renewed.access_token).not.toBe(record.access_token);
    expect(Object.keys(renewed)).toEqual(EXCHANGE_KEYS);
    expect((await oidc.stats()).exchangedSubjects.at(-1)).toBe('repo:skiff:ref:rotated');

    // A subject token the provider refuses: one line, exit 4, the token nowhere, the cache untouched.
    expire(home);
    const before = readFileSync(home.cacheFile('e2e.test'), 'utf8');
    const stranger = await ciToken(oidc, 'repo:evil', strangerKey.privateKey);
    writeFileSync(tokenFile, stranger);
    const refused = await home.run(['auth', 'token']);
    expectOneLine(refused, 4, /refused the token exchange: HTTP 400: .*invalid_grant/);
    expectNoToken(refused, stranger);
    expect(readFileSync(home.cacheFile('e2e.test'), 'utf8')).toBe(before);

    // The file gone: exit 3 naming it, the cache untouched.
    rmSync(tokenFile);
    expectOneLine(await home.run(['auth', 'token']), 3, /^skiff: the subject token file .*ci-token does not exist$/);
    expect(readFileSync(home.cacheFile('e2e.test'), 'utf8')).toBe(before);
    home.remove();
  });

  it.each([
    ['a missing file', 3, (file: string) => (rmSync(file), [file]), /subject token file .* does not exist$/],
    ['an empty file', 3, (file: string) => (writeFileSync(file, '\n'), [file]), /subject token file .* is empty$/],
  ])('%s: one line, exit %s, nothing cached, no request', async (_, code, prepare, line) => {
    const { home, tokenFile } = await exchangeHome(oidc);
    const before = (await oidc.stats()).token;
    expectOneLine(await login(home, ['--subject-token-file', ...prepare(tokenFile)]), code, line);
    expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);
    expect((await oidc.stats()).token).toEqual(before);
    home.remove();
  });

  it('a token signed by a key the provider does not trust: invalid_grant, exit 4, the token nowhere, nothing cached', async () => {
    const { home, tokenFile } = await exchangeHome(oidc);
    const stranger = await ciToken(oidc, 'repo:evil', strangerKey.privateKey);
    writeFileSync(tokenFile, stranger);
    const result = await login(home, ['--subject-token-file', tokenFile]);
    expectOneLine(result, 4, /refused the token exchange: HTTP 400: .*invalid_grant.*\[redacted\]/);
    expectNoToken(result, stranger);
    expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);
    home.remove();
  });

  it('a subject token type the provider does not take: invalid_request, exit 4, nothing cached', async () => {
    const { home, tokenFile } = await exchangeHome(oidc);
    const type = 'urn:ietf:params:oauth:token-type:id_token';
    const result = await login(home, ['--subject-token-file', tokenFile, '--subject-token-type', type]);
    expectOneLine(result, 4, /refused the token exchange: HTTP 400: .*invalid_request/);
    expectNoToken(result, readFileSync(tokenFile, 'utf8').trim());
    expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);
    home.remove();
  });

  it.each([
    [['--client-secret-file', '/run/secret'], /--client-secret-file=\/run\/secret cannot also be provided/],
    [['--device'], /--device=true cannot also be provided/],
    [['--port', '9876'], /--port=9876 cannot also be provided/],
  ])('with %j: a usage error in one line, exit 2, nothing read or cached', async (extra, line) => {
    const { home, tokenFile } = await exchangeHome(oidc);
    expectOneLine(await login(home, ['--subject-token-file', tokenFile, ...extra]), 2, line);
    expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);
    home.remove();
  });

  it('--subject-token-type without --subject-token-file: a usage error; a malformed type: exit 3', async () => {
    const { home, tokenFile } = await exchangeHome(oidc);
    expectOneLine(await login(home, ['--subject-token-type', 'urn:x:y']), 2, /--subject-token-file/);
    expectOneLine(
      await login(home, ['--subject-token-file', tokenFile, '--subject-token-type', 'jwt']),
      3,
      /^skiff: --subject-token-type must be an absolute URI/,
    );
    home.remove();
  });
});

describe('auth login --subject-token-file against a provider without the grant', () => {
  it('one line, exit 3, nothing cached, no token request', async () => {
    const oidc = await OidcServer.start({ OIDC_TOKEN_EXCHANGE: '0' });
    try {
      const { home, tokenFile } = await exchangeHome(oidc);
      const result = await login(home, ['--subject-token-file', tokenFile]);
      expectOneLine(result, 3, /does not offer the token exchange grant/);
      expect((await oidc.stats()).token).toEqual({});
      expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);
      home.remove();
    } finally {
      await oidc.stop();
    }
  });
});

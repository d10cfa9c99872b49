import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliHome, CliResult } from '../support/skiff-home';
import { OidcServer } from '../support/oidc';
import { signInWithSso, useProvider } from '../support/sign-in';
import { keyringTestsRunHere, KeyringSession } from '../../support/keyring-session';

const fileOf = (home: CliHome) =>
  JSON.parse(readFileSync(home.cacheFile('e2e.test'), 'utf8')) as Record<string, unknown>;

function expire(home: CliHome): void {
  writeFileSync(home.cacheFile('e2e.test'), JSON.stringify({ ...fileOf(home), expires_at: '2020-01-01T00:00:00Z' }));
}

function expectOneLine(result: CliResult, code: number, line: RegExp): void {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr.trimEnd()).toMatch(line);
}

const UNAVAILABLE = /the OS keyring is not available \(.+\): .*`skiff config set --token-store file`$/;

/** A home signed in to the provider's context `e2e`; `bus`: the D-Bus session its commands reach (none by default). */
async function homeFor(oidc: OidcServer, bus?: KeyringSession): Promise<CliHome> {
  const home = new CliHome();
  if (bus !== undefined) Object.assign(home.env, bus.env());
  await useProvider(home, oidc);
  return home;
}

const robotLogin = (home: CliHome) => {
  const secretFile = join(home.dir, 'robot.secret');
  writeFileSync(secretFile, 'robot-secret\n', { mode: 0o600 });
  return home.run(['auth', 'login', '--client-id', 'skiff-robot', '--client-secret-file', secretFile]);
};

describe('the keyring token store without a keyring (no D-Bus session)', () => {
  let oidc: OidcServer;
  beforeAll(async () => (oidc = await OidcServer.start()));
  afterAll(() => oidc.stop());

  it('a sign-in to the keyring store: one line, exit 3, naming the way back to the file; nothing cached', async () => {
    const home = await homeFor(oidc);
    expect(await home.run(['config', 'set', '--token-store', 'keyring'])).toEqual({
      code: 0,
      stdout: 'Context e2e now keeps its tokens in the OS keyring.\n',
      stderr: '',
    });
    expectOneLine(await robotLogin(home), 3, new RegExp(`^skiff: ${UNAVAILABLE.source}`));
    expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);

    expect((await home.run(['config', 'set', '--token-store', 'file'])).code).toBe(0);
    expect((await robotLogin(home)).code).toBe(0);
    expect(fileOf(home).access_token).toEqual(expect.any(String));
    // Moving a record to a keyring that is not there changes nothing.
    const before = readFileSync(home.cacheFile('e2e.test'), 'utf8');
    expectOneLine(await home.run(['config', 'set', '--token-store', 'keyring']), 3, UNAVAILABLE);
    expect(readFileSync(home.cacheFile('e2e.test'), 'utf8')).toBe(before);
    expect(readFileSync(join(home.dir, 'config', 'skiff', 'config.yaml'), 'utf8')).not.toContain('keyring');
    home.remove();
  });
});

if (keyringTestsRunHere()) {
  describe('the keyring token store with gnome-keyring-daemon (its own D-Bus session, unlocked)', () => {
    let oidc: OidcServer;
    let session: KeyringSession;
    beforeAll(async () => {
      oidc = await OidcServer.start();
      session = await KeyringSession.start();
    }, 30_000);
    afterAll(async () => {
      await oidc.stop();
      await session.stop();
    });

    it("a person's sign-in: the file holds no secret; token, status, kube-credential, a refresh on expiry; logout empties the keyring", async () => {
      const home = await homeFor(oidc, session);
      expect((await home.run(['config', 'set', '--token-store', 'keyring'])).code).toBe(0);
      expect((await signInWithSso(home)).code).toBe(0);
      const record = fileOf(home);
      expect(Object.keys(record)).toEqual(['expires_at', 'domain', 'keyring']);
      const generation = (record.keyring as { generation: string }).generation;
      expect(session.accounts().filter((a) => a.includes(generation))).toEqual(
        ['access_token', 'id_token', 'refresh_token'].map((f) => `auth/e2e.test/${generation}/${f}/0`).sort(),
      );
      expect(statSync(home.cacheFile('e2e.test')).mode & 0o777).toBe(0o600);

      const token = await home.run(['auth', 'token']);
      expect(token.code).toBe(0);
      const accessToken = token.stdout.trim();
      expect(accessToken.length).toBeGreaterThan(10);
      expect(readFileSync(home.cacheFile('e2e.test'), 'utf8')).not.toContain(accessToken);
      expect(JSON.parse((await home.run(['auth', 'token', '--json'])).stdout)).toMatchObject({
        token: accessToken,
        tokenStore: { kind: 'keyring', path: home.cacheFile('e2e.test') },
      });
      const status = await home.run(['auth', 'status', '--json', '--domain', 'e2e.test']);
      expect(JSON.parse(status.stdout)).toMatchObject({
        loggedIn: true,
        identity: 'alice@example.com',
        tokenStore: { kind: 'keyring', path: home.cacheFile('e2e.test') },
      });
      expect(status.stdout).not.toContain(accessToken);
      expect((await home.run(['auth', 'status', '--domain', 'e2e.test'])).stdout).toContain(
        `Token store: keyring (the rest of the record in ${home.cacheFile('e2e.test')})`,
      );
      expect(JSON.parse((await home.run(['auth', 'kube-credential'])).stdout).status.token).toBe(accessToken);

      expire(home);
      const refreshes = await oidc.grants('refresh_token');
      const refreshed = await home.run(['auth', 'token']);
      expect(refreshed.code).toBe(0);
      expect(refreshed.stdout.trim()).not.toBe(accessToken);
      expect(await oidc.grants('refresh_token')).toBe(refreshes + 1);
      const renewed = (fileOf(home).keyring as { generation: string }).generation;
      expect(renewed).not.toBe(generation);
      expect(session.accounts().filter((a) => a.includes(renewed))).toEqual(
        ['access_token', 'id_token', 'refresh_token'].map((f) => `auth/e2e.test/${renewed}/${f}/0`).sort(),
      );
      expect(session.accounts().filter((a) => a.includes(generation))).toEqual([]);

      expect((await home.run(['auth', 'logout'])).code).toBe(0);
      expect(session.accounts().filter((a) => a.includes(renewed))).toEqual([]);
      expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);
      home.remove();
    });

    it('config set --token-store moves the record both ways at once', async () => {
      const home = await homeFor(oidc, session);
      expect((await robotLogin(home)).code).toBe(0);
      const accessToken = fileOf(home).access_token as string;
      expect(await home.run(['config', 'set', '--token-store', 'keyring'])).toEqual({
        code: 0,
        stdout: 'Context e2e now keeps its tokens in the OS keyring (the tokens of e2e.test moved there).\n',
        stderr: '',
      });
      expect(readFileSync(home.cacheFile('e2e.test'), 'utf8')).not.toContain(accessToken);
      const generation = (fileOf(home).keyring as { generation: string }).generation;
      expect(session.accounts().filter((a) => a.includes(generation))).toEqual([
        `auth/e2e.test/${generation}/access_token/0`,
      ]);
      expect((await home.run(['auth', 'token'])).stdout).toBe(`${accessToken}\n`);
      expect((await home.run(['config', 'set', '--token-store', 'file'])).code).toBe(0);
      expect(fileOf(home).access_token).toBe(accessToken);
      expect(session.accounts().filter((a) => a.includes(generation))).toEqual([]);
      home.remove();
    });

    it('a keyring record where no keyring answers (no bus, or none listening): one line, exit 3; status reports it; back, it reads', async () => {
      const home = await homeFor(oidc, session);
      expect((await home.run(['config', 'set', '--token-store', 'keyring'])).code).toBe(0);
      expect((await robotLogin(home)).code).toBe(0);
      for (const env of [
        { DBUS_SESSION_BUS_ADDRESS: undefined },
        { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
      ]) {
        const result = await home.run(['auth', 'token'], { env });
        expectOneLine(
          result,
          3,
          /^skiff: token cache .*e2e\.test\.json: its tokens are in the OS keyring, but the OS keyring is not available/,
        );
        expect(result.stderr.trimEnd()).toMatch(/`skiff config set --token-store file`$/);
        const status = await home.run(['auth', 'status', '--json', '--domain', 'e2e.test'], { env });
        expect(status.code).toBe(0);
        expect(JSON.parse(status.stdout)).toMatchObject({
          loggedIn: false,
          problem: expect.stringMatching(/OS keyring/),
        });
      }
      // Reachable again: the record was never lost.
      expect((await home.run(['auth', 'token'])).code).toBe(0);
      home.remove();
    });

    it('a sign-in while the keyring is locked and cannot prompt: one line, exit 3, nothing cached', async () => {
      const locked = await KeyringSession.start({ unlocked: false });
      try {
        const home = await homeFor(oidc, locked);
        expect((await home.run(['config', 'set', '--token-store', 'keyring'])).code).toBe(0);
        expectOneLine(await robotLogin(home), 3, new RegExp(`^skiff: ${UNAVAILABLE.source}`));
        expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);
        home.remove();
      } finally {
        await locked.stop();
      }
    });
  });
}

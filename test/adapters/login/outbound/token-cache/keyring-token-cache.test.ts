import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenCacheError } from '../../../../../src/domain/login/auth/auth-errors';
import { FsTokenCache } from '../../../../../src/adapters/login/outbound/token-cache/fs-token-cache';
import { KEYRING_PART_CHARS } from '../../../../../src/adapters/login/outbound/token-cache/keyring-record';
import { FakeTokenCache } from '../../../../../src/adapters/fakes/login/fake-token-cache';
import { FakeSecretStore } from '../../../../../src/adapters/fakes/login/fake-secret-store';
import { SecretStore } from '../../../../../src/application/login/ports/secret-store.port';
import { tokenCacheContract } from '../../../../contract/login/token-cache.contract';
import { keyringTestsRunHere, KeyringSession, OsKeyringInChild } from '../../../../support/keyring-session';
import { aRecord } from '../../../../support/tokens';

function fsSubject(secrets: SecretStore) {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-cache-'));
  const cache = new FsTokenCache(join(dir, 'auth'), secrets);
  return {
    cache,
    store: 'keyring' as const,
    corrupt: (d: string) => {
      mkdirSync(join(dir, 'auth'), { recursive: true });
      writeFileSync(cache.location(d), '{"keyring": {"generation": "torn');
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

tokenCacheContract('FakeTokenCache (keyring store)', () => {
  const cache = new FakeTokenCache();
  return { cache, store: 'keyring', corrupt: (d) => cache.markCorrupt(d), cleanup: () => undefined };
});

tokenCacheContract('FsTokenCache with the keyring store (FakeSecretStore)', () => fsSubject(new FakeSecretStore()));

if (keyringTestsRunHere()) {
  describe('FsTokenCache with gnome-keyring-daemon', () => {
    let session: KeyringSession;
    beforeAll(async () => (session = await KeyringSession.start()), 30_000);
    afterAll(() => session.stop());
    tokenCacheContract('FsTokenCache with the keyring store (OsKeyringSecretStore)', () =>
      fsSubject(new OsKeyringInChild(session.address)),
    );
  });
}

describe('FsTokenCache with the keyring store', () => {
  let dir: string;
  let secrets: FakeSecretStore;
  let cache: FsTokenCache;
  const file = () => readFileSync(cache.location('example.com'), 'utf8');
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-cache-'));
    secrets = new FakeSecretStore();
    cache = new FsTokenCache(join(dir, 'auth'), secrets);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the file holds the record without a secret and a reference; the secrets are in the keyring, long ones in parts', async () => {
    const idToken = `h.${'c'.repeat(2 * KEYRING_PART_CHARS + 10)}.s`;
    const record = aRecord({ idToken, giteaToken: 'git-secret', refreshToken: '' });
    await cache.write('example.com', record, 'keyring');
    const json = JSON.parse(file()) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['expires_at', 'domain', 'keyring']);
    expect(json.keyring).toMatchObject({ parts: { access_token: 1, refresh_token: 0, id_token: 3, gitea_token: 1 } });
    for (const secret of [record.accessToken, idToken.slice(0, 100), 'git-secret'])
      expect(file()).not.toContain(secret);
    expect([...secrets.entries.values()].every((part) => part.length <= KEYRING_PART_CHARS)).toBe(true);
    expect(secrets.entries.size).toBe(5);
    expect({ ...(await cache.read('example.com')) }).toEqual({ ...record });
    expect(cache.store('example.com')).toEqual({ kind: 'keyring', path: cache.location('example.com') });
  });

  it('a rewrite uses new entries and removes the old ones once the file names the new', async () => {
    await cache.write('example.com', aRecord(), 'keyring');
    const first = [...secrets.entries.keys()];
    await cache.write('example.com', aRecord({ accessToken: 'second' }), 'keyring');
    expect([...secrets.entries.keys()].some((k) => first.includes(k))).toBe(false);
    await expect(cache.read('example.com')).resolves.toMatchObject({ accessToken: 'second' });
  });

  it('the keyring refusing in the middle of a write: its error, the previous record usable, no entry of the new one left', async () => {
    await cache.write('example.com', aRecord(), 'keyring');
    const before = file();
    const kept = new Map(secrets.entries);
    secrets.failAfter = 1;
    const err = await cache.write('example.com', aRecord({ accessToken: 'new' }), 'keyring').catch((e: unknown) => e);
    expect((err as { code: string }).code).toBe('AUTH.KEYRING_UNAVAILABLE');
    expect(file()).toBe(before);
    expect(secrets.entries).toEqual(kept);
    await expect(cache.read('example.com')).resolves.toMatchObject({ accessToken: 'access-1' });
  });

  it('the file failing to be written (a link where it belongs): the new entries removed, the keyring as before', async () => {
    mkdirSync(join(dir, 'auth'), { recursive: true });
    symlinkSync('/dev/null', cache.location('example.com'));
    await expect(cache.write('example.com', aRecord(), 'keyring')).rejects.toBeInstanceOf(TokenCacheError);
    expect(secrets.entries.size).toBe(0);
  });

  it('no keyring at all: the write says so and nothing is written; the file store still works', async () => {
    secrets.unavailable = 'no D-Bus session';
    await expect(cache.write('example.com', aRecord(), 'keyring')).rejects.toThrow(
      /^the OS keyring is not available \(no D-Bus session\): .*`skiff config set --token-store file`$/,
    );
    expect(() => file()).toThrow();
    await cache.write('example.com', aRecord(), 'file');
    await expect(cache.read('example.com')).resolves.toMatchObject({ accessToken: 'access-1' });
  });

  it('a keyring record read without the keyring: AUTH.KEYRING_UNAVAILABLE naming the file', async () => {
    await cache.write('example.com', aRecord(), 'keyring');
    secrets.unavailable = 'locked';
    const err = (await cache.read('example.com').catch((e: unknown) => e)) as TokenCacheError;
    expect(err).toBeInstanceOf(TokenCacheError);
    expect(err.code).toBe('AUTH.KEYRING_UNAVAILABLE');
    expect(err.message).toContain(cache.location('example.com'));
    expect(err.message).toContain('`skiff config set --token-store file`');
  });

  it('entries missing (removed by hand): the record is unusable, naming the file and what to do', async () => {
    await cache.write('example.com', aRecord(), 'keyring');
    secrets.entries.clear();
    const err = (await cache.read('example.com').catch((e: unknown) => e)) as TokenCacheError;
    expect(err.code).toBe('AUTH.CACHE_UNREADABLE');
    expect(err.message).toMatch(/refers to keyring entries that are missing \(access_token\); run `skiff auth login`/);
  });

  it('moving between the stores: keyring to file removes the entries; file to keyring leaves no secret in the file', async () => {
    await cache.write('example.com', aRecord(), 'keyring');
    await cache.write('example.com', aRecord(), 'file');
    expect(secrets.entries.size).toBe(0);
    expect(JSON.parse(file())).toMatchObject({ access_token: 'access-1' });
    expect(cache.store('example.com').kind).toBe('file');
    await cache.write('example.com', aRecord(), 'keyring');
    expect(file()).not.toContain('access-1');
  });

  it('remove deletes the file and its entries', async () => {
    await cache.write('example.com', aRecord({ giteaToken: 'g' }), 'keyring');
    await expect(cache.remove('example.com')).resolves.toBe(true);
    expect(secrets.entries.size).toBe(0);
  });

  it('a malformed reference: unusable, naming the field', async () => {
    mkdirSync(join(dir, 'auth'), { recursive: true });
    writeFileSync(
      cache.location('example.com'),
      JSON.stringify({ expires_at: '2030-01-01T00:00:00Z', domain: 'd', keyring: { generation: '../x', parts: {} } }),
    );
    await expect(cache.read('example.com')).rejects.toThrow(/field keyring is not a keyring reference/);
  });
});

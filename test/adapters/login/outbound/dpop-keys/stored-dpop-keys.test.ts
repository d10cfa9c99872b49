import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoredDpopKeys } from '../../../../../src/adapters/login/outbound/dpop-keys/stored-dpop-keys';
import { FakeDpopKeys } from '../../../../../src/adapters/fakes/login/fake-dpop-keys';
import { FakeSecretStore } from '../../../../../src/adapters/fakes/login/fake-secret-store';
import { TokenCacheError } from '../../../../../src/domain/login/auth/auth-errors';
import { dpopKeysContract } from '../../../../contract/login/dpop-keys.contract';

dpopKeysContract('FakeDpopKeys', () => ({ keys: new FakeDpopKeys(), cleanup: () => undefined }));

dpopKeysContract('StoredDpopKeys', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-dpop-'));
  const keyring = new FakeSecretStore();
  return { keys: new StoredDpopKeys(dir, () => keyring), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
});

describe('StoredDpopKeys on disk (docs/login-contract.md, "DPoP")', () => {
  let dir: string;
  let keyring: FakeSecretStore;
  let keys: StoredDpopKeys;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-dpop-'));
    keyring = new FakeSecretStore();
    keys = new StoredDpopKeys(dir, () => keyring);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('file store: <safe_domain>.dpop.jwk, 0600, the private JWK; nothing in the keyring', async () => {
    await keys.keyFor('a:b.example', 'file');
    const path = join(dir, 'a_b.example.dpop.jwk');
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    const jwk = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
    expect(Object.keys(jwk).sort()).toEqual(['crv', 'd', 'kty', 'x', 'y']);
    expect(keyring.entries.size).toBe(0);
  });

  it('keyring store: the file holds the public members and the entry name, the private member is the keyring entry; remove removes both', async () => {
    await keys.keyFor('example.com', 'keyring');
    const path = join(dir, 'example.com.dpop.jwk');
    const doc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
    expect(doc.d).toBeUndefined();
    expect(doc.keyring).toBe('dpop/example.com');
    expect(keyring.entries.get('dpop/example.com')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(readFileSync(path, 'utf8')).not.toContain(keyring.entries.get('dpop/example.com') as string);
    await keys.remove('example.com');
    expect(keyring.entries.size).toBe(0);
  });

  it('a keyring that is unavailable: its error, and no file naming an entry that is not there', async () => {
    keyring.unavailable = 'no D-Bus session';
    await expect(keys.keyFor('example.com', 'keyring')).rejects.toMatchObject({ code: 'AUTH.KEYRING_UNAVAILABLE' });
    expect(() => lstatSync(join(dir, 'example.com.dpop.jwk'))).toThrow();
  });

  it('never read or written through a symbolic link; a damaged file is an error naming it', async () => {
    const elsewhere = join(dir, 'elsewhere');
    writeFileSync(elsewhere, 'x');
    symlinkSync(elsewhere, join(dir, 'example.com.dpop.jwk'));
    await expect(keys.existing('example.com')).rejects.toBeInstanceOf(TokenCacheError);
    await expect(keys.keyFor('example.com', 'file')).rejects.toBeInstanceOf(TokenCacheError);
    expect(readFileSync(elsewhere, 'utf8')).toBe('x');
    writeFileSync(join(dir, 'other.dpop.jwk'), '{"kty":"RSA"}', { mode: 0o600 });
    await expect(keys.existing('other')).rejects.toThrow(/other\.dpop\.jwk: is not a P-256 DPoP key/);
  });
});

import { AuthTokens } from '../../../src/domain/login/auth/auth-tokens';
import { TokenCacheError } from '../../../src/domain/login/auth/auth-errors';
import { TokenCache } from '../../../src/application/login/ports/token-cache.port';
import { TokenStoreKind } from '../../../src/domain/login/auth/token-store';
import { aRecord } from '../../support/tokens';

export interface TokenCacheSubject {
  readonly cache: TokenCache;
  /** The store every write asks for (absent: the default, `file`). */
  readonly store?: TokenStoreKind;
  /** Makes the record of `domain` unparsable, as a damaged file would be. */
  corrupt(domain: string): void;
  cleanup(): void;
}

/** What every TokenCache does, run against the fake and the file adapter alike. */
export function tokenCacheContract(name: string, make: () => TokenCacheSubject): void {
  describe(`${name} honours the TokenCache contract`, () => {
    let subject: TokenCacheSubject;
    beforeEach(() => (subject = make()));
    afterEach(() => subject.cleanup());

    it('reads nothing when nothing was written', async () => {
      await expect(subject.cache.read('example.com')).resolves.toBeUndefined();
    });

    it('reads back every field written', async () => {
      const record = aRecord({ giteaToken: 'git-1' });
      await subject.cache.write('example.com', record, subject.store);
      const read = (await subject.cache.read('example.com')) as AuthTokens;
      expect({ ...read }).toEqual({ ...record });
      expect(read.expiresAt.getTime()).toBe(record.expiresAt.getTime());
    });

    it('keeps absent optional fields absent', async () => {
      await subject.cache.write('example.com', aRecord({ idToken: undefined, refreshToken: '' }), subject.store);
      const read = await subject.cache.read('example.com');
      expect(read?.idToken).toBeUndefined();
      expect(read?.giteaToken).toBeUndefined();
      expect(read?.refreshToken).toBe('');
    });

    it('replaces a record on write and keeps domains apart', async () => {
      await subject.cache.write('example.com', aRecord(), subject.store);
      await subject.cache.write('example.com', aRecord({ accessToken: 'second' }), subject.store);
      await subject.cache.write('other.org', aRecord({ accessToken: 'other', domain: 'other.org' }), subject.store);
      await expect(subject.cache.read('example.com')).resolves.toMatchObject({ accessToken: 'second' });
      await expect(subject.cache.read('other.org')).resolves.toMatchObject({ accessToken: 'other' });
      await expect(subject.cache.read('')).resolves.toBeUndefined();
    });

    it('removes: true when a record was there, false after', async () => {
      await subject.cache.write('example.com', aRecord(), subject.store);
      await expect(subject.cache.remove('example.com')).resolves.toBe(true);
      await expect(subject.cache.remove('example.com')).resolves.toBe(false);
      await expect(subject.cache.read('example.com')).resolves.toBeUndefined();
    });

    it('reports an unusable record as TokenCacheError naming its location; a write replaces it', async () => {
      subject.corrupt('example.com');
      const err = await subject.cache.read('example.com').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TokenCacheError);
      expect((err as TokenCacheError).path).toBe(subject.cache.location('example.com'));
      expect((err as Error).message).toContain(subject.cache.location('example.com'));
      await subject.cache.write('example.com', aRecord(), subject.store);
      await expect(subject.cache.read('example.com')).resolves.toMatchObject({ accessToken: 'access-1' });
    });

    it('reports the store holding a record: the one written to (`memory` in the fake for `file`)', async () => {
      await subject.cache.write('example.com', aRecord(), subject.store);
      const kind = subject.cache.store('example.com').kind;
      expect(kind === 'memory' ? 'file' : kind).toBe(subject.store ?? 'file');
    });

    it('locates a domain at <safe_domain>.json, the empty domain at default.json', () => {
      expect(subject.cache.location('localhost:8080')).toMatch(/[/\\]localhost_8080\.json$/);
      expect(subject.cache.location('')).toMatch(/[/\\]default\.json$/);
    });
  });
}

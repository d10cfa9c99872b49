import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PublicEcJwk } from '../../../../domain/login/auth/dpop';
import { safeDomain } from '../../../../domain/login/auth/safe-domain';
import { TokenCacheError } from '../../../../domain/login/auth/auth-errors';
import { TokenStoreKind } from '../../../../domain/login/auth/token-store';
import { DpopKey, DpopKeys } from '../../../../application/login/ports/dpop-keys.port';
import type { SecretStore } from '../../../../application/login/ports/secret-store.port';
import { describeFsError, writeFileAtomic } from '../../helpers/atomic-file';
import { readRegularFile, UnsafeFileError } from '../../../shared/helpers/no-follow-file';

/** A key file is a few hundred bytes. */
const MAX_KEY_BYTES = 16 * 1024;
const B64URL = /^[A-Za-z0-9_-]{43}$/;

type Crypto = typeof import('node:crypto');
const crypto = (): Crypto => require('node:crypto') as Crypto;

/**
 * The domain's DPoP key pair (docs/login-contract.md, "DPoP"), `<safe_domain>.dpop.jwk`
 * beside the token cache, written by the same no-follow atomic writer (0600, a link refused).
 * With the `file` store the file is the private JWK; with the `keyring` store it holds the
 * public members and `"keyring": "<entry>"`, and the private member `d` is that keyring entry.
 */
export class StoredDpopKeys implements DpopKeys {
  constructor(
    private readonly directory: string,
    private readonly keyring: () => SecretStore,
  ) {}

  private path(domain: string): string {
    return join(this.directory, `${safeDomain(domain)}.dpop.jwk`);
  }

  private entry(domain: string): string {
    return `dpop/${safeDomain(domain)}`;
  }

  async keyFor(domain: string, store: TokenStoreKind): Promise<DpopKey> {
    return (await this.existing(domain)) ?? this.make(domain, store);
  }

  async existing(domain: string): Promise<DpopKey | undefined> {
    const path = this.path(domain);
    let text: string | undefined;
    try {
      text = readRegularFile(path, { limit: MAX_KEY_BYTES, tighten: true });
    } catch (err) {
      const why = err instanceof UnsafeFileError ? err.message : describeFsError(err);
      throw new TokenCacheError(path, `the DPoP key cannot be read: ${why}`, 'AUTH.CACHE_UNREADABLE');
    }
    if (text === undefined) return undefined;
    const doc = this.parse(path, text);
    let d = doc.d;
    if (d === undefined && typeof doc.keyring === 'string') d = await this.keyring().get(doc.keyring);
    if (typeof d !== 'string' || !B64URL.test(d))
      throw new TokenCacheError(
        path,
        'the DPoP key is incomplete: run `skiff auth login` again',
        'AUTH.CACHE_UNREADABLE',
      );
    return this.key({ kty: 'EC', crv: 'P-256', x: doc.x as string, y: doc.y as string }, d);
  }

  async remove(domain: string): Promise<boolean> {
    const path = this.path(domain);
    let doc: Record<string, unknown> | undefined;
    try {
      const text = readRegularFile(path, { limit: MAX_KEY_BYTES });
      doc = text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      doc = {};
    }
    if (doc === undefined) return false;
    try {
      unlinkSync(path);
    } catch {
      return false;
    }
    if (typeof doc.keyring === 'string')
      await this.keyring()
        .delete(doc.keyring)
        .catch(() => false);
    return true;
  }

  private parse(path: string, text: string): Record<string, unknown> {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      doc = undefined;
    }
    const fields = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
    const ok =
      fields.kty === 'EC' &&
      fields.crv === 'P-256' &&
      typeof fields.x === 'string' &&
      B64URL.test(fields.x) &&
      typeof fields.y === 'string' &&
      B64URL.test(fields.y);
    if (!ok)
      throw new TokenCacheError(path, 'is not a P-256 DPoP key: remove it and sign in again', 'AUTH.CACHE_UNREADABLE');
    return fields;
  }

  /** A new P-256 pair (Node's own crypto); the private half written only where the store says. */
  private async make(domain: string, store: TokenStoreKind): Promise<DpopKey> {
    const { privateKey } = crypto().generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = privateKey.export({ format: 'jwk' }) as { x: string; y: string; d: string };
    const publicJwk: PublicEcJwk = { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
    const path = this.path(domain);
    let file: Record<string, string> = { ...publicJwk, d: jwk.d };
    if (store === 'keyring') {
      // Entry first, then the file naming it: a file never names an entry that is not there.
      await this.keyring().set(this.entry(domain), jwk.d);
      file = { ...publicJwk, keyring: this.entry(domain) };
    }
    try {
      writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`, 0o600);
    } catch (err) {
      throw new TokenCacheError(
        path,
        `the DPoP key cannot be written: ${describeFsError(err)}`,
        'AUTH.CACHE_UNWRITABLE',
      );
    }
    return this.key(publicJwk, jwk.d);
  }

  private key(publicJwk: PublicEcJwk, d: string): DpopKey {
    const privateKey = crypto().createPrivateKey({ key: { ...publicJwk, d }, format: 'jwk' });
    return {
      publicJwk,
      sign: async (input) =>
        crypto()
          .sign('sha256', Buffer.from(input, 'ascii'), { key: privateKey, dsaEncoding: 'ieee-p1363' })
          .toString('base64url'),
    };
  }
}

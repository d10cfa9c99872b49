import { PublicEcJwk } from '../../../domain/login/auth/dpop';
import { TokenStoreKind } from '../../../domain/login/auth/token-store';

export const DPOP_KEYS = Symbol('DpopKeys');

/** A domain's DPoP key (RFC 9449): its public JWK, and ES256 signatures made with the private half, which never leaves. */
export interface DpopKey {
  readonly publicJwk: PublicEcJwk;
  /** The JWS signature (RFC 7515, base64url of R || S) over `signingInput`'s ASCII bytes. */
  sign(signingInput: string): Promise<string>;
}

/**
 * One P-256 key pair per domain, kept beside its token cache: the private key in the OS
 * keyring when the context's token store is the keyring, else in a 0600 file; never
 * printed. A keyring that cannot be used is the ConfigurationError of the token cache.
 */
export interface DpopKeys {
  /** The domain's key, made and kept in `store` when there is none. */
  keyFor(domain: string, store: TokenStoreKind): Promise<DpopKey>;
  /** The domain's key when one is kept (wherever), else undefined; nothing is made. */
  existing(domain: string): Promise<DpopKey | undefined>;
  /** Removes the domain's key (logout); false when there was none. */
  remove(domain: string): Promise<boolean>;
}

import { inject, injectable } from 'inversify';
import { accessTokenHash, htuOf, JTI_BYTES, proofSigningInput } from '../../../domain/login/auth/dpop';
import { base64url } from '../../../domain/login/auth/encoding';
import { TokenStoreKind } from '../../../domain/login/auth/token-store';
import { IdentityError } from '../../../domain/shared/errors';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { DPOP_KEYS, type DpopKey, type DpopKeys } from '../ports/dpop-keys.port';
import { HASHER, type Hasher } from '../ports/hasher.port';
import type { DpopProver } from '../ports/identity-provider.port';
import { RANDOM, type Random } from '../ports/random.port';

/** What a proof is for: a request, and the bound access token when it goes to a resource (RFC 9449 §7). */
export interface ProofRequest {
  readonly method: string;
  readonly url: string;
  readonly nonce?: string;
  readonly accessToken?: string;
}

/**
 * DPoP proofs (RFC 9449 §4; docs/login-contract.md, "DPoP"): a fresh `jti` and `iat` for
 * each, signed with the domain's key. The token endpoint's (sign-in, refresh) make the key
 * when it is missing; a resource's need the key the token is bound to.
 */
@injectable()
export class DpopProofs {
  constructor(
    @inject(DPOP_KEYS) private readonly keys: DpopKeys,
    @inject(RANDOM) private readonly random: Random,
    @inject(HASHER) private readonly hasher: Hasher,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** A prover for the token endpoint with the domain's key, made in `store` when there is none. */
  async forTokenEndpoint(domain: string, store: TokenStoreKind): Promise<DpopProver> {
    const key = await this.keys.keyFor(domain, store);
    return (method, url, nonce) => this.proof(key, { method, url, nonce });
  }

  /** The key a DPoP-bound token of `domain` is bound to; its loss is an identity error (sign in again). */
  async boundKey(domain: string): Promise<DpopKey> {
    const key = await this.keys.existing(domain);
    if (key === undefined) {
      throw new IdentityError(
        `the token of ${domain || 'default'} is bound to a DPoP key that is no longer kept: run \`skiff auth login\``,
        'AUTH.DPOP_KEY_MISSING',
      );
    }
    return key;
  }

  async proof(key: DpopKey, request: ProofRequest): Promise<string> {
    const input = proofSigningInput({
      jwk: key.publicJwk,
      jti: base64url(this.random.bytes(JTI_BYTES)),
      htm: request.method,
      htu: htuOf(request.url),
      iat: Math.floor(this.clock.now().getTime() / 1000),
      nonce: request.nonce,
      ath:
        request.accessToken === undefined
          ? undefined
          : accessTokenHash(request.accessToken, (b) => this.hasher.sha256(b)),
    });
    return `${input}.${await key.sign(input)}`;
  }
}

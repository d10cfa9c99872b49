import { inject, injectable } from 'inversify';
import { CLIENT_ID } from '../../../domain/login/auth/authorization-url';
import { IdTokenClaims, idTokenRefused } from '../../../domain/login/auth/id-token-claims';
import { TokenResponse } from '../../../domain/login/auth/token-response';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { ID_TOKEN_VERIFIER, type IdTokenVerifier } from '../ports/id-token-verifier.port';
import { ProviderMetadata } from '../ports/identity-provider.port';

/**
 * Every id_token a token endpoint sends (code exchange, device grant, refresh) is
 * verified on receipt, before anything is stored (docs/login-contract.md, "Verified
 * id_tokens"); a reply without one is accepted as before. A cached id_token is never
 * verified again: reading the cache stays fast and offline.
 */
@injectable()
export class IdTokenCheck {
  constructor(
    @inject(ID_TOKEN_VERIFIER) private readonly verifier: IdTokenVerifier,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The verified claims of the reply's id_token, undefined when it has none; IdentityError when refused. */
  async received(
    reply: TokenResponse,
    metadata: ProviderMetadata,
    expect: { readonly nonce?: string; readonly subject?: string } = {},
  ): Promise<IdTokenClaims | undefined> {
    if (reply.idToken === undefined) return undefined;
    if (metadata.jwksUri === undefined) {
      throw idTokenRefused(
        'the provider publishes no signing keys to verify it with (no jwks_uri in its discovery document)',
      );
    }
    return this.verifier.verify(reply.idToken, {
      jwksUri: metadata.jwksUri,
      issuer: metadata.issuer,
      clientId: CLIENT_ID,
      now: this.clock.now(),
      ...expect,
    });
  }
}

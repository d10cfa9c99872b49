import { inject, injectable } from 'inversify';
import { proofTarget } from '../../../domain/login/auth/dpop';
import { ConfigurationError } from '../../../domain/shared/errors';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { DpopProofs } from './dpop-proofs';
import { GetToken } from './get-token.use-case';

export interface DpopProofInput {
  readonly target: AuthTarget;
  readonly method: string;
  readonly url: string;
}

/**
 * `auth token --dpop-proof --method M --url U` (docs/login-contract.md, "DPoP"): a fresh
 * proof for one request to a resource with the access token `auth token` prints (got, and
 * refreshed, as it gets it), carrying that token's hash (`ath`). A proof is not a secret;
 * the key that signs it never leaves the store. A bearer token has no key to prove.
 */
@injectable()
export class DpopProof {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(GetToken) private readonly tokens: GetToken,
    @inject(DpopProofs) private readonly proofs: DpopProofs,
  ) {}

  async execute(input: DpopProofInput): Promise<string> {
    const { htm, htu } = proofTarget(input.method, input.url);
    const scope = await this.scopes.scope(input.target);
    const tokens = await this.tokens.tokens(scope);
    if (!tokens.dpopBound()) {
      throw new ConfigurationError(
        `the token of ${tokens.domain || 'default'} is a bearer token, not bound to a DPoP key: send it as \`Authorization: Bearer\`, ` +
          'or run `skiff config set --dpop` and `skiff auth login` for a DPoP-bound one',
        'AUTH.NOT_DPOP_BOUND',
      );
    }
    const key = await this.proofs.boundKey(scope.cacheDomain);
    return this.proofs.proof(key, { method: htm, url: htu, accessToken: tokens.accessToken });
  }
}

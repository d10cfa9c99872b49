import { inject, injectable } from 'inversify';
import { assertTokenExchangeOffered, ExchangeSubject } from '../../../domain/login/auth/token-exchange';
import { TokenResponse } from '../../../domain/login/auth/token-response';
import { IDENTITY_PROVIDER, type IdentityProvider } from '../ports/identity-provider.port';
import { SUBJECT_TOKENS, type SubjectTokens } from '../ports/subject-tokens.port';

/**
 * The token exchange of a robot (RFC 8693), for its sign-in and each time its token is
 * obtained again: the subject token read first from its file (a missing or empty one stops
 * before any request), discovery, the grant checked in `grant_types_supported`.
 */
@injectable()
export class TokenExchangeGrant {
  constructor(
    @inject(SUBJECT_TOKENS) private readonly subjectTokens: SubjectTokens,
    @inject(IDENTITY_PROVIDER) private readonly provider: IdentityProvider,
  ) {}

  async obtain(issuerUrl: string, subject: ExchangeSubject): Promise<TokenResponse> {
    const subjectToken = await this.subjectTokens.read(subject.subjectTokenFile);
    const metadata = await this.provider.discover(issuerUrl);
    assertTokenExchangeOffered(metadata.grantTypesSupported, new URL(issuerUrl).host);
    const reply = await this.provider.tokenExchange(metadata.tokenEndpoint, {
      clientId: subject.clientId,
      subjectToken,
      subjectTokenType: subject.subjectTokenType,
    });
    // Neither an id_token nor a refresh token is kept: the next token comes from the (rotated) subject token.
    const { idToken: _ignored, refreshToken: _none, ...kept } = reply;
    return kept;
  }
}

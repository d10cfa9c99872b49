import { inject, injectable } from 'inversify';
import { RobotClient } from '../../../domain/login/auth/auth-tokens';
import { assertClientCredentialsOffered, clientAuthMethod } from '../../../domain/login/auth/client-credentials';
import { TokenResponse } from '../../../domain/login/auth/token-response';
import { CLIENT_SECRETS, type ClientSecrets } from '../ports/client-secrets.port';
import { IDENTITY_PROVIDER, type IdentityProvider } from '../ports/identity-provider.port';

/**
 * The client credentials grant of a robot (RFC 6749 §4.4), for its sign-in and each time
 * its token is obtained again: the secret read first (a missing or unreadable one stops
 * before any request), discovery, the grant checked in `grant_types_supported`, the
 * client authenticated as `token_endpoint_auth_methods_supported` allows.
 */
@injectable()
export class ClientCredentialsGrant {
  constructor(
    @inject(CLIENT_SECRETS) private readonly secrets: ClientSecrets,
    @inject(IDENTITY_PROVIDER) private readonly provider: IdentityProvider,
  ) {}

  async obtain(issuerUrl: string, client: RobotClient): Promise<TokenResponse> {
    const clientSecret = await this.secrets.read(client.clientSecretFile);
    const metadata = await this.provider.discover(issuerUrl);
    const host = new URL(issuerUrl).host;
    assertClientCredentialsOffered(metadata.grantTypesSupported, host);
    const authMethod = clientAuthMethod(metadata.tokenEndpointAuthMethodsSupported, host);
    const reply = await this.provider.clientCredentials(metadata.tokenEndpoint, {
      clientId: client.clientId,
      clientSecret,
      authMethod,
    });
    // No id_token is kept for a robot: the grant signs no user in (OpenID Connect issues none for it).
    const { idToken: _ignored, refreshToken: _none, ...kept } = reply;
    return kept;
  }
}

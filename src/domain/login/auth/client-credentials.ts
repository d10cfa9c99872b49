import { assertGrantOffered } from './grant-offered';
import { ConfigurationError } from '../../shared/errors';

/** RFC 6749 §4.4: the grant of a confidential client acting on its own behalf (a robot). */
const CLIENT_CREDENTIALS_GRANT = 'client_credentials';

/** How the client authenticates at the token endpoint (RFC 6749 §2.3.1; OpenID Connect Core §9). */
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

/** The environment variable that may hold the client secret instead of a file. */
export const CLIENT_SECRET_ENV = 'SKIFF_CLIENT_SECRET';

/**
 * The provider must list the grant in `grant_types_supported` (RFC 8414 §2; absent, the
 * default is authorization_code and implicit only): else a configuration error naming it.
 */
export function assertClientCredentialsOffered(grantTypes: readonly string[] | undefined, host: string): void {
  assertGrantOffered(
    {
      type: CLIENT_CREDENTIALS_GRANT,
      name: 'client credentials',
      otherwise: 'sign in with `skiff auth login`',
      code: 'AUTH.CLIENT_CREDENTIALS_NOT_OFFERED',
    },
    grantTypes,
    host,
  );
}

/**
 * The method from `token_endpoint_auth_methods_supported`: client_secret_basic when listed
 * (or when the list is absent: it is the default of RFC 8414 §2 and OpenID Discovery §3),
 * else client_secret_post; neither is a configuration error.
 */
export function clientAuthMethod(supported: readonly string[] | undefined, host: string): ClientAuthMethod {
  if (supported === undefined || supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  throw new ConfigurationError(
    `the identity provider at ${host} accepts no client secret at its token endpoint ` +
      `(token_endpoint_auth_methods_supported lists ${supported.join(', ') || 'nothing'})`,
    'AUTH.CLIENT_AUTH_UNSUPPORTED',
  );
}

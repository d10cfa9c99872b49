import { assertGrantOffered } from './grant-offered';
import { ConfigurationError } from '../../shared/errors';

/** RFC 8693 §2.1: the grant that trades a token the caller holds for one of the provider's. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

/**
 * The default `subject_token_type` (RFC 8693 §3): CI systems' OIDC tokens (GitHub Actions,
 * GitLab, Kubernetes service accounts) are JWTs, and naming them `jwt` rather than `id_token`
 * asks nothing of their audience (an id_token is meant for its own client).
 */
export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

/** RFC 8693 §3: what skiff asks for, an access token for the platform. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** Who exchanges, and the subject token's file and type: kept in the record to exchange again. */
export interface ExchangeSubject {
  /** The client the exchange is made as (a public client: no secret). */
  readonly clientId: string;
  /** The subject token's file, absolute (never the token). */
  readonly subjectTokenFile: string;
  readonly subjectTokenType: string;
}

/**
 * RFC 8693 §3 types are absolute URIs: a scheme, `:`, and no blank or control character
 * (they are sent in a form and kept in the cache file). Else a configuration error.
 */
export function subjectTokenType(type: string | undefined): string {
  if (type === undefined) return JWT_TOKEN_TYPE;
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/^[A-Za-z][A-Za-z0-9+.-]*:[^\s\u0000-\u001f\u007f]+$/.test(type)) return type;
  throw new ConfigurationError(
    `--subject-token-type must be an absolute URI such as ${JWT_TOKEN_TYPE} (RFC 8693 §3)`,
    'AUTH.SUBJECT_TOKEN_TYPE',
  );
}

/**
 * The provider must list the grant in `grant_types_supported` (RFC 8414 §2; absent, the
 * default is authorization_code and implicit only): else a configuration error naming it.
 */
export function assertTokenExchangeOffered(grantTypes: readonly string[] | undefined, host: string): void {
  assertGrantOffered(
    {
      type: TOKEN_EXCHANGE_GRANT,
      name: 'token exchange',
      otherwise: 'sign in with `skiff auth login` or `--client-id`',
      code: 'AUTH.TOKEN_EXCHANGE_NOT_OFFERED',
    },
    grantTypes,
    host,
  );
}

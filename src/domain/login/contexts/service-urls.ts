import { ConfigurationError } from '../../shared/errors';

/** Base URLs a context may override (docs/login-contract.md, "Contexts"). */
export interface UrlOverrides {
  readonly identityProviderUrl?: string;
  readonly gitHostUrl?: string;
  readonly boardsUrl?: string;
}

export interface ServiceUrls {
  /** The OpenID provider's issuer base: discovery lives under /.well-known/openid-configuration. */
  readonly identityProvider: string;
  readonly gitHost: string;
  /** The board tool's API base: /access-tokens/exchange-using-token, /projects. */
  readonly boards: string;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * A base URL a user configured: https anywhere, plain http only for loopback hosts
 * (docs/login-contract.md, "Contexts"), no credentials, query or fragment. Returned without a trailing '/'.
 */
export function checkServiceUrl(url: string, what: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigurationError(
      `${what} ${JSON.stringify(url)} is not a URL: use https://host[/path]`,
      'CONFIG.BAD_URL',
    );
  }
  const loopback = LOOPBACK.test(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) {
    throw new ConfigurationError(
      `${what} ${JSON.stringify(url)} must use https (plain http is accepted only for loopback hosts)`,
      'CONFIG.INSECURE_URL',
    );
  }
  if (parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '') {
    throw new ConfigurationError(
      `${what} ${JSON.stringify(url)} must not carry credentials, a query or a fragment`,
      'CONFIG.BAD_URL',
    );
  }
  return url.replace(/\/+$/, '');
}

/**
 * The services of a domain: https://auth.<domain>, https://src.<domain> and
 * https://projects.<domain>/api, each replaced by the override when one is given.
 */
export function serviceUrls(domain: string, overrides: UrlOverrides = {}): ServiceUrls {
  const pick = (override: string | undefined, name: string, fallback: string) =>
    override
      ? checkServiceUrl(override, `the ${name} URL of the active context`)
      : checkServiceUrl(fallback, `the ${name} URL of domain ${JSON.stringify(domain)}`);
  return {
    identityProvider: pick(overrides.identityProviderUrl, 'identity-provider', `https://auth.${domain}`),
    gitHost: pick(overrides.gitHostUrl, 'git-host', `https://src.${domain}`),
    boards: pick(overrides.boardsUrl, 'boards', `https://projects.${domain}/api`),
  };
}

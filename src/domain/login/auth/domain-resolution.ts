import { ConfigurationError } from '../../shared/errors';
import { domainUndetermined } from './auth-errors';

/** Where the domain came from (step 3 prints a notice). */
export type DomainSource = 'flag' | 'context' | 'cache' | 'discovery';

export interface ResolvedDomain {
  readonly domain: string;
  readonly source: DomainSource;
}

/**
 * The sources of docs/login-contract.md, "Which domain", in order. Later ones are asked
 * only when the earlier ones gave nothing (reading the cache or asking the cluster
 * costs I/O).
 */
export interface DomainSources {
  readonly flag?: string;
  readonly context?: string;
  readonly cached: () => Promise<string | undefined>;
  readonly discovered: () => Promise<string | undefined>;
}

/** A usable domain: no whitespace or control characters (they would make broken URLs and paths). */
export function assertUsableDomain(domain: string, from: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\s\u0000-\u001f\u007f]/.test(domain)) {
    throw new ConfigurationError(
      `the domain ${JSON.stringify(domain)} from ${from} contains whitespace or control characters: use a plain host name`,
      'AUTH.BAD_DOMAIN',
    );
  }
  return domain;
}

/** Discovery is accepted only when non-empty and not starting with '.'. */
export function acceptDiscovered(domain: string | undefined): domain is string {
  return domain !== undefined && domain !== '' && !domain.startsWith('.');
}

/**
 * First match wins: the --domain flag, the active context's domain, the cached
 * record's domain, cluster discovery; otherwise a configuration error naming
 * --domain and `config set --host`.
 */
export async function resolveDomain(sources: DomainSources): Promise<ResolvedDomain> {
  if (sources.flag) return { domain: assertUsableDomain(sources.flag, '--domain'), source: 'flag' };
  if (sources.context) return { domain: assertUsableDomain(sources.context, 'the active context'), source: 'context' };
  const cached = await sources.cached();
  if (cached) return { domain: assertUsableDomain(cached, 'the token cache'), source: 'cache' };
  const discovered = await sources.discovered();
  if (acceptDiscovered(discovered))
    return { domain: assertUsableDomain(discovered, 'cluster discovery'), source: 'discovery' };
  throw domainUndetermined();
}

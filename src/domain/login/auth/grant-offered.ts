import { ConfigurationError } from '../../shared/errors';

/**
 * Refuses a grant the provider's discovery does not list in `grant_types_supported` (RFC 8414
 * §2), naming the grant, what the list held and how else to sign in.
 */
export function assertGrantOffered(
  grant: { readonly type: string; readonly name: string; readonly otherwise: string; readonly code: string },
  grantTypes: readonly string[] | undefined,
  host: string,
): void {
  if (grantTypes?.includes(grant.type)) return;
  throw new ConfigurationError(
    `the identity provider at ${host} does not offer the ${grant.name} grant (grant_types_supported ` +
      `${grantTypes === undefined ? 'is absent' : `lists ${grantTypes.join(', ') || 'nothing'}`}): ${grant.otherwise}`,
    grant.code,
  );
}

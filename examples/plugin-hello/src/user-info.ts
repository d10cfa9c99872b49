import { IdentityError, NetworkError, Session } from 'skiff-cli/plugin';

/** Every request is bounded: a silent platform never hangs the command. */
const TIMEOUT_MS = 15_000;

/** The claims the identity provider returns for the token's user (OpenID Connect Core 1.0, 5.3). */
export interface UserInfo {
  readonly sub: string;
  readonly email?: string;
}

async function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  try {
    return await fetch(url, { headers, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch {
    // Only the host is named: the request carried a token.
    throw new NetworkError(
      `cannot reach ${new URL(url).host}: check the domain and that the service is up`,
      'HELLO.UNREACHABLE',
    );
  }
}

async function json(reply: Response, what: string): Promise<Record<string, unknown>> {
  const body: unknown = await reply.json().catch(() => undefined);
  if (typeof body !== 'object' || body === null) throw new NetworkError(`${what} is not JSON`, 'HELLO.NOT_JSON');
  return body as Record<string, unknown>;
}

/**
 * Asks the identity provider of the session's domain who the access token belongs
 * to: discovery names the userinfo endpoint, which is called with the token as a
 * bearer (RFC 6750). A refused token is an identity error (exit 4), anything else
 * that goes wrong a network error (exit 5).
 */
export async function userInfo(session: Session): Promise<UserInfo> {
  const issuer = session.urls.identityProvider;
  const discovery = await get(`${issuer}/.well-known/openid-configuration`);
  if (!discovery.ok)
    throw new NetworkError(
      `${new URL(issuer).host} answered discovery with HTTP ${discovery.status}`,
      'HELLO.DISCOVERY',
    );
  const endpoint = (await json(discovery, 'the discovery document')).userinfo_endpoint;
  if (typeof endpoint !== 'string')
    throw new NetworkError(
      `the identity provider at ${new URL(issuer).host} has no userinfo endpoint`,
      'HELLO.NO_USERINFO',
    );
  // The session's headers: a bearer token, or a DPoP-bound one with a fresh proof for this request (RFC 9449).
  const reply = await get(endpoint, await session.authorization('GET', endpoint));
  if (reply.status === 401)
    throw new IdentityError(
      `${new URL(endpoint).host} refused the access token: run \`skiff auth login\``,
      'HELLO.REFUSED',
    );
  if (!reply.ok) throw new NetworkError(`${new URL(endpoint).host} answered HTTP ${reply.status}`, 'HELLO.USERINFO');
  const claims = await json(reply, 'the userinfo reply');
  if (typeof claims.sub !== 'string') throw new NetworkError('the userinfo reply has no subject', 'HELLO.NO_SUBJECT');
  return { sub: claims.sub, email: typeof claims.email === 'string' ? claims.email : undefined };
}

import { DeviceCode } from '../../../../domain/login/auth/device-grant';
import { formEncode } from '../../../../domain/login/auth/percent-encoding';
import { IdentityError, NetworkError } from '../../../../domain/shared/errors';
import { DeviceAuthorization, DevicePoll } from '../../../../application/login/ports/device-authorization.port';
import { HttpClient, hostOf, oneLine, parseJsonReply, redact } from '../../helpers/http-client';
import { tokenReply } from './oidc-identity-provider';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** §3.5's answers to a poll, by the `error` of a 400 reply. */
const POLL_ERRORS = {
  authorization_pending: 'pending',
  slow_down: 'slow_down',
  access_denied: 'denied',
  expired_token: 'expired',
} as const;

/** The URL as checked, normalised (`href`: percent-encoded, no control character left), never the raw string. */
function verificationUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname))
      ? url.href
      : undefined;
  } catch {
    return undefined;
  }
}

/** The device authorization grant (RFC 8628) over HTTP, for a public client. */
export class OidcDeviceAuthorization implements DeviceAuthorization {
  constructor(private readonly http: HttpClient) {}

  async start(endpoint: string, clientId: string, scope: string): Promise<DeviceCode> {
    const host = hostOf(endpoint);
    const body = formEncode([
      ['client_id', clientId],
      ['scope', scope],
    ]);
    const reply = await this.http.send({ method: 'POST', url: endpoint, headers: FORM, body });
    if (reply.status < 200 || reply.status >= 300) {
      const text = oneLine(reply.body);
      throw new IdentityError(
        `the identity provider at ${host} refused the device authorization: HTTP ${reply.status}${text ? `: ${text}` : ''}`,
        'OIDC.DEVICE_STATUS',
      );
    }
    const doc = (parseJsonReply(reply, endpoint, 'the device authorization') ?? {}) as Record<string, unknown>;
    const need = <T>(value: T | undefined, what: string): T => {
      if (value !== undefined) return value;
      throw new NetworkError(
        `the device authorization endpoint of ${host} answered without ${what}`,
        'OIDC.BAD_DEVICE_REPLY',
      );
    };
    const text = (key: string) => (typeof doc[key] === 'string' && doc[key] !== '' ? (doc[key] as string) : undefined);
    const expiresIn = Number(doc.expires_in);
    const code: { -readonly [K in keyof DeviceCode]: DeviceCode[K] } = {
      deviceCode: need(text('device_code'), 'a device_code'),
      userCode: need(text('user_code'), 'a user_code'),
      verificationUri: need(verificationUrl(doc.verification_uri), 'an https verification_uri'),
      expiresIn: need(Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : undefined, 'a valid expires_in'),
    };
    const complete = verificationUrl(doc.verification_uri_complete);
    if (complete !== undefined) code.verificationUriComplete = complete;
    const interval = Number(doc.interval);
    if (doc.interval !== undefined && Number.isFinite(interval) && interval > 0) code.interval = interval;
    return code;
  }

  async poll(tokenEndpoint: string, deviceCode: string, clientId: string): Promise<DevicePoll> {
    const host = hostOf(tokenEndpoint);
    const body = formEncode([
      ['grant_type', GRANT],
      ['device_code', deviceCode],
      ['client_id', clientId],
    ]);
    const reply = await this.http.send({ method: 'POST', url: tokenEndpoint, headers: FORM, body });
    if (reply.status >= 200 && reply.status < 300) {
      return { outcome: 'granted', reply: tokenReply(parseJsonReply(reply, tokenEndpoint, 'the device poll'), host) };
    }
    let error: unknown;
    try {
      error = (JSON.parse(reply.body) as { error?: unknown }).error;
    } catch {
      error = undefined;
    }
    const outcome =
      typeof error === 'string' && Object.hasOwn(POLL_ERRORS, error)
        ? POLL_ERRORS[error as keyof typeof POLL_ERRORS]
        : undefined;
    if (reply.status === 400 && outcome !== undefined) return { outcome };
    const text = oneLine(redact(reply.body, [deviceCode]));
    throw new IdentityError(
      `the identity provider at ${host} refused the device sign-in: HTTP ${reply.status}${text ? `: ${text}` : ''}`,
      'OIDC.TOKEN_STATUS',
    );
  }
}

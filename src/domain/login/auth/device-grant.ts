import { ConfigurationError, IdentityError } from '../../shared/errors';

/**
 * The OAuth 2.0 device authorization grant (RFC 8628) as the CLI runs it: what the
 * device authorization endpoint answered (§3.2) and how polling the token endpoint
 * goes on (§3.4, §3.5).
 */
export interface DeviceCode {
  readonly deviceCode: string;
  readonly userCode: string;
  readonly verificationUri: string;
  readonly verificationUriComplete?: string;
  /** Seconds the codes live. */
  readonly expiresIn: number;
  /** Seconds between polls; absent means 5 (§3.2). */
  readonly interval?: number;
}

/** One poll's answer: §3.5's error codes, or the tokens. */
export type DevicePollOutcome = 'pending' | 'slow_down' | 'denied' | 'expired';

export const DEFAULT_POLL_INTERVAL_S = 5;
/** slow_down: "the interval MUST be increased by 5 seconds for this and all subsequent requests" (§3.5). */
export const SLOW_DOWN_STEP_S = 5;

/**
 * Bounds on what a provider may announce. An interval of 3,000,000 s would be a timer over
 * 2^31 ms, which Node turns into 1 ms (a tight polling loop); one under a second hammers the
 * token endpoint; codes that live for years keep a shell waiting for ever. RFC 8628 has 5 s
 * as its default interval and 1800 s in its example; providers announce 5 s and 900-1800 s.
 */
export const MIN_POLL_INTERVAL_S = 1;
export const MAX_POLL_INTERVAL_S = 300;
export const MAX_DEVICE_CODE_LIFETIME_S = 1800;

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : max;
}

/** The first wait, in seconds: the announced interval (5 when absent) within 1..300 s. */
export function firstPollInterval(code: Pick<DeviceCode, 'interval'>): number {
  return clamp(code.interval ?? DEFAULT_POLL_INTERVAL_S, MIN_POLL_INTERVAL_S, MAX_POLL_INTERVAL_S);
}

/** How long the codes are waited for, in seconds: `expires_in`, at most 1800 s. */
export function deviceCodeLifetime(code: Pick<DeviceCode, 'expiresIn'>): number {
  return clamp(code.expiresIn, 0, MAX_DEVICE_CODE_LIFETIME_S);
}

/** The wait before the next poll, in seconds, after `outcome` (never over 300 s). */
export function nextPollInterval(current: number, outcome: 'pending' | 'slow_down'): number {
  const next = outcome === 'slow_down' ? current + SLOW_DOWN_STEP_S : current;
  return clamp(next, MIN_POLL_INTERVAL_S, MAX_POLL_INTERVAL_S);
}

export function deviceFlowNotOffered(host: string): ConfigurationError {
  return new ConfigurationError(
    `the identity provider at ${host} offers no device sign-in (its discovery document lists no ` +
      'device_authorization_endpoint): sign in with the browser flow, `skiff auth login` without --device ' +
      '(on a remote machine: --no-browser --port <n> and `ssh -L <n>:127.0.0.1:<n>`)',
    'AUTH.NO_DEVICE_FLOW',
  );
}

export function deviceSignInDenied(): IdentityError {
  return new IdentityError(
    'the sign-in was denied at the identity provider: run `skiff auth login --device` again to retry',
    'AUTH.DEVICE_DENIED',
  );
}

export function deviceCodeExpired(): IdentityError {
  return new IdentityError(
    'the device code expired before the sign-in was approved: run `skiff auth login --device` again',
    'AUTH.DEVICE_EXPIRED',
  );
}

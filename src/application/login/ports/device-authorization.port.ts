import { DeviceCode, DevicePollOutcome } from '../../../domain/login/auth/device-grant';
import { TokenResponse } from '../../../domain/login/auth/token-response';

export const DEVICE_AUTHORIZATION = Symbol('DeviceAuthorization');

export type DevicePoll =
  { readonly outcome: DevicePollOutcome } | { readonly outcome: 'granted'; readonly reply: TokenResponse };

/**
 * The provider's side of the device grant (RFC 8628). A refusal other than the four
 * §3.5 answers is an IdentityError with the status and body; an unreachable provider
 * a NetworkError.
 */
export interface DeviceAuthorization {
  /** §3.1: POST the device authorization endpoint with the client id and scope. */
  start(endpoint: string, clientId: string, scope: string): Promise<DeviceCode>;
  /** §3.4: one token request with the device_code grant. */
  poll(tokenEndpoint: string, deviceCode: string, clientId: string): Promise<DevicePoll>;
}

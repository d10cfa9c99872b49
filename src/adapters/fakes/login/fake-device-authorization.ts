import { DeviceCode } from '../../../domain/login/auth/device-grant';
import { DeviceAuthorization, DevicePoll } from '../../../application/login/ports/device-authorization.port';

/** The provider's device grant in memory: a fixed code, and the answers to the polls in order. */
export class FakeDeviceAuthorization implements DeviceAuthorization {
  code: DeviceCode = {
    deviceCode: 'device-1',
    userCode: 'WDJB-MJHT',
    verificationUri: 'https://auth.example.com/device',
    verificationUriComplete: 'https://auth.example.com/device?user_code=WDJB-MJHT',
    expiresIn: 600,
    interval: 5,
  };
  /** The answers to the next polls; once used up, every poll is pending. */
  polls: DevicePoll[] = [];
  readonly starts: Array<{ endpoint: string; clientId: string; scope: string }> = [];
  readonly pollCalls: Array<{ endpoint: string; deviceCode: string; clientId: string }> = [];

  async start(endpoint: string, clientId: string, scope: string): Promise<DeviceCode> {
    this.starts.push({ endpoint, clientId, scope });
    return this.code;
  }

  async poll(endpoint: string, deviceCode: string, clientId: string): Promise<DevicePoll> {
    this.pollCalls.push({ endpoint, deviceCode, clientId });
    return this.polls.shift() ?? { outcome: 'pending' };
  }
}

import { HttpClient } from '../../../../../src/adapters/login/helpers/http-client';
import { OidcDeviceAuthorization } from '../../../../../src/adapters/login/outbound/identity-provider/oidc-device-authorization';
import { OidcIdentityProvider } from '../../../../../src/adapters/login/outbound/identity-provider/oidc-identity-provider';
import { IdentityError, NetworkError } from '../../../../../src/domain/shared/errors';
import { HttpStub } from '../../../../support/http-stub';

describe('the device grant over HTTP (OidcDeviceAuthorization)', () => {
  let stub: HttpStub;
  const device = new OidcDeviceAuthorization(new HttpClient());
  beforeEach(async () => (stub = await HttpStub.start()));
  afterEach(() => stub.close());

  it('discovery reads the device_authorization_endpoint when listed', async () => {
    stub.on('GET /.well-known/openid-configuration', {
      body: {
        authorization_endpoint: `${stub.url}/auth`,
        token_endpoint: `${stub.url}/token`,
        device_authorization_endpoint: `${stub.url}/device/auth`,
      },
    });
    const metadata = await new OidcIdentityProvider(new HttpClient()).discover(stub.url);
    expect(metadata.deviceAuthorizationEndpoint).toBe(`${stub.url}/device/auth`);
  });

  it('start: POSTs client_id and scope, reads the reply (interval and the complete URI optional)', async () => {
    stub.on('POST /device/auth', {
      body: { device_code: 'dc', user_code: 'AB-CD', verification_uri: 'https://id.example/device', expires_in: 600 },
    });
    await expect(device.start(`${stub.url}/device/auth`, 'skiff-cli', 'openid email')).resolves.toEqual({
      deviceCode: 'dc',
      userCode: 'AB-CD',
      verificationUri: 'https://id.example/device',
      expiresIn: 600,
    });
    expect(stub.requests[0].body).toBe('client_id=skiff-cli&scope=openid%20email');
    expect(stub.requests[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it.each([
    [{ user_code: 'x', verification_uri: 'https://a/', expires_in: 1 }, /without a device_code/],
    [
      { device_code: 'd', user_code: 'x', verification_uri: 'http://evil.example/', expires_in: 1 },
      /https verification_uri/,
    ],
    [{ device_code: 'd', user_code: 'x', verification_uri: 'https://a/', expires_in: 'soon' }, /valid expires_in/],
  ])('start: a malformed reply %j is a network error', async (body, message) => {
    stub.on('POST /device/auth', { body });
    const err = await device.start(`${stub.url}/device/auth`, 'skiff-cli', 'openid').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toMatch(message);
  });

  it('start: a refusal is an identity error with the status and body', async () => {
    stub.on('POST /device/auth', { status: 400, body: { error: 'unauthorized_client' } });
    await expect(device.start(`${stub.url}/device/auth`, 'skiff-cli', 'openid')).rejects.toThrow(
      /refused the device authorization: HTTP 400: .*unauthorized_client/,
    );
  });

  it('poll: the device_code grant; RFC 8628 §3.5 answers and the tokens', async () => {
    const answers = [
      { status: 400, body: { error: 'authorization_pending' } },
      { status: 400, body: { error: 'slow_down' } },
      { status: 400, body: { error: 'access_denied' } },
      { status: 400, body: { error: 'expired_token' } },
      { body: { access_token: 'at', refresh_token: 'rt', expires_in: 60 } },
    ];
    stub.on('POST /token', () => answers.shift() ?? { status: 500 });
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await device.poll(`${stub.url}/token`, 'dc', 'skiff-cli'));
    expect(outcomes).toEqual([
      { outcome: 'pending' },
      { outcome: 'slow_down' },
      { outcome: 'denied' },
      { outcome: 'expired' },
      { outcome: 'granted', reply: { accessToken: 'at', refreshToken: 'rt', expiresIn: 60 } },
    ]);
    expect(stub.requests[0].body).toBe(
      'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=dc&client_id=skiff-cli',
    );
  });

  it('poll: an error named like an object property is no answer of §3.5', async () => {
    stub.on('POST /token', { status: 400, body: { error: 'constructor' } });
    await expect(device.poll(`${stub.url}/token`, 'dc', 'skiff-cli')).rejects.toThrow(IdentityError);
  });

  it('poll: any other refusal is an identity error, the device code redacted', async () => {
    stub.on('POST /token', { status: 400, body: { error: 'invalid_grant', error_description: 'bad code dc-secret' } });
    const err = await device.poll(`${stub.url}/token`, 'dc-secret', 'skiff-cli').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as Error).message).toMatch(/refused the device sign-in: HTTP 400: .*invalid_grant/);
    expect((err as Error).message).not.toContain('dc-secret');
  });
});

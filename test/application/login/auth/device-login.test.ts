import { DeviceLogin } from '../../../../src/application/login/auth/device-login.use-case';
import { Login } from '../../../../src/application/login/auth/login.use-case';
import { SsoLogin } from '../../../../src/application/login/auth/sso-login.use-case';
import { ConfigurationError, IdentityError } from '../../../../src/domain/shared/errors';
import { SkiffTestbed, skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { aRecord, idToken, NOW } from '../../../../src/adapters/fakes/login/tokens';
import { waitFor } from '../../../support/wait-for';

const DEVICE_ENDPOINT = 'https://auth.example.com/device/auth';

function withDeviceFlow(): SkiffTestbed {
  const h = skiffTestbed();
  h.provider.metadata = { ...h.provider.metadata, deviceAuthorizationEndpoint: DEVICE_ENDPOINT };
  return h;
}

const granted = {
  outcome: 'granted' as const,
  reply: {
    accessToken: 'access-9',
    refreshToken: 'refresh-9',
    expiresIn: 900,
    idToken: idToken({ email: 'bob@example.com' }),
  },
};

/** Lets the use case reach its next sleep, then moves the fake clock past it. */
async function tick(h: SkiffTestbed, seconds: number): Promise<void> {
  await waitFor('the next sleep', () => h.clock.pendingSleeps === 1);
  h.clock.advance(seconds * 1000);
}

describe('device sign-in (RFC 8628)', () => {
  it('starts with the client id and scopes of the browser flow, shows the URI and code, writes the cache as the browser flow does', async () => {
    const h = withDeviceFlow();
    h.cache.records.set('example.com', aRecord({ giteaToken: 'old-git' }));
    h.device.polls = [{ outcome: 'pending' }, granted];
    const done = h.get(DeviceLogin).execute({ target: {}, openBrowser: true });
    await tick(h, 5);
    await tick(h, 5);
    await expect(done).resolves.toEqual({ domain: 'example.com', email: 'bob@example.com' });
    expect(h.device.starts).toEqual([
      { endpoint: DEVICE_ENDPOINT, clientId: 'skiff-cli', scope: 'openid email profile offline_access' },
    ]);
    expect(h.device.pollCalls[0]).toEqual({
      endpoint: 'https://auth.example.com/token',
      deviceCode: 'device-1',
      clientId: 'skiff-cli',
    });
    expect(h.notifier.infos.join('\n')).toContain(
      'open https://auth.example.com/device and enter the code:\n\n  WDJB-MJHT',
    );
    expect(h.browser.opened).toEqual(['https://auth.example.com/device?user_code=WDJB-MJHT']);
    const record = h.cache.records.get('example.com');
    expect(record).toMatchObject({ accessToken: 'access-9', refreshToken: 'refresh-9', domain: 'example.com' });
    expect(record?.giteaToken).toBeUndefined();
    expect(record?.expiresAt).toEqual(new Date(NOW.getTime() + 10_000 + 900_000));
    // Exactly the specification's fields: no scope, no kind of sign-in (both derived, never stored).
    expect(Object.keys(record ?? {}).sort()).toEqual(['accessToken', 'domain', 'expiresAt', 'idToken', 'refreshToken']);
  });

  it('waits the server interval before each poll, 5 s when none is given, and 5 s more after each slow_down', async () => {
    const h = withDeviceFlow();
    h.device.code = { ...h.device.code, interval: undefined, verificationUriComplete: undefined };
    h.device.polls = [{ outcome: 'slow_down' }, { outcome: 'pending' }, { outcome: 'slow_down' }, granted];
    const done = h.get(DeviceLogin).execute({ target: {}, openBrowser: false });
    for (const [wait, polls] of [
      [5, 1],
      [10, 2],
      [10, 3],
      [15, 4],
    ]) {
      await waitFor('the next sleep', () => h.clock.pendingSleeps === 1);
      h.clock.advance(wait * 1000 - 1);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(h.device.pollCalls).toHaveLength(polls - 1);
      h.clock.advance(1);
      await waitFor(`poll ${polls}`, () => h.device.pollCalls.length === polls);
    }
    await expect(done).resolves.toMatchObject({ domain: 'example.com' });
    expect(h.browser.opened).toEqual([]);
  });

  it.each([
    ['access_denied', { outcome: 'denied' as const }, /denied at the identity provider/],
    ['expired_token', { outcome: 'expired' as const }, /device code expired before the sign-in was approved/],
  ])('%s ends it with an identity error and no cache', async (_, poll, message) => {
    const h = withDeviceFlow();
    h.device.polls = [{ outcome: 'pending' }, poll];
    const done = h.get(DeviceLogin).execute({ target: {}, openBrowser: false });
    const err = done.catch((e: unknown) => e);
    await tick(h, 5);
    await tick(h, 5);
    expect(await err).toBeInstanceOf(IdentityError);
    expect(((await err) as Error).message).toMatch(message);
    expect(h.cache.records.size).toBe(0);
  });

  it('a user who never approves: pending until the codes expire, then the expired error', async () => {
    const h = withDeviceFlow();
    h.device.code = { ...h.device.code, expiresIn: 12 };
    const err = h
      .get(DeviceLogin)
      .execute({ target: {}, openBrowser: false })
      .catch((e: unknown) => e);
    await tick(h, 5);
    await tick(h, 5);
    await tick(h, 5);
    expect(await err).toBeInstanceOf(IdentityError);
    expect(((await err) as Error).message).toMatch(/expired/);
    expect(h.device.pollCalls).toHaveLength(3);
  });

  it('hostile interval and expires_in are bounded: 3,000,000 s waits 300 s, 0.001 s waits 1 s, 10^12 s gives up after 1800 s', async () => {
    const h = withDeviceFlow();
    // 3e9 ms is over setTimeout's 2^31 - 1 ms, which Node turns into 1 ms: a tight loop.
    h.device.code = { ...h.device.code, interval: 3_000_000, expiresIn: 1e12 };
    h.device.polls = [{ outcome: 'slow_down' }];
    const err = h
      .get(DeviceLogin)
      .execute({ target: {}, openBrowser: false })
      .catch((e: unknown) => e);
    for (let polls = 1; polls <= 6; polls++) {
      await waitFor('the next sleep', () => h.clock.pendingSleeps === 1);
      h.clock.advance(300_000 - 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(h.device.pollCalls).toHaveLength(polls - 1);
      h.clock.advance(1);
      await waitFor(`poll ${polls}`, () => h.device.pollCalls.length === polls);
    }
    expect(await err).toBeInstanceOf(IdentityError);
    expect(((await err) as Error).message).toMatch(/expired/);
    expect(h.notifier.waits.join('\n')).toContain('up to 30 minutes');

    const fast = withDeviceFlow();
    fast.device.code = { ...fast.device.code, interval: 0.001 };
    fast.device.polls = [granted];
    const done = fast.get(DeviceLogin).execute({ target: {}, openBrowser: false });
    await waitFor('the first sleep', () => fast.clock.pendingSleeps === 1);
    fast.clock.advance(999);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fast.device.pollCalls).toHaveLength(0);
    fast.clock.advance(1);
    await expect(done).resolves.toMatchObject({ domain: 'example.com' });
  });

  it('without a device_authorization_endpoint: a configuration error naming the browser flow, nothing started', async () => {
    const h = skiffTestbed();
    const err = await h
      .get(DeviceLogin)
      .execute({ target: {}, openBrowser: false })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toMatch(
      /auth\.example\.com offers no device sign-in.*`skiff auth login` without --device/,
    );
    expect(h.device.starts).toHaveLength(0);
  });

  it('auth login --device: the device sign-in for the resolved domain, then the git token step', async () => {
    const h = withDeviceFlow();
    h.device.polls = [granted];
    h.prompt.answer = 'git-token-1';
    const done = h.get(Login).execute({ target: {}, openBrowser: false, device: true });
    await tick(h, 5);
    const result = await done;
    expect(result.sso).toEqual({ domain: 'example.com', email: 'bob@example.com' });
    expect(h.cache.records.get('example.com')).toMatchObject({ accessToken: 'access-9', giteaToken: 'git-token-1' });
    expect(h.listener.requestedPort).toBe('not listened');
  });
});

describe('the browser flow on a machine with no display', () => {
  const reply = { accessToken: 'access-9', refreshToken: 'refresh-9' };
  it('suggests --device when the provider offers it, and goes on with the browser flow', async () => {
    const h = withDeviceFlow();
    h.browser.onOpen = (url) => h.listener.deliver(`/callback?code=c&state=${new URL(url).searchParams.get('state')}`);
    h.provider.tokenReplies = [reply];
    await h.get(SsoLogin).execute({ target: {}, openBrowser: true, noDisplay: true });
    expect(h.notifier.infos.filter((l) => l.includes('--device'))).toEqual([
      expect.stringMatching(/^No display here: .*`skiff auth login --device` signs in with a code/),
    ]);
    expect(h.cache.records.get('example.com')).toMatchObject({ accessToken: 'access-9' });
  });

  it('says nothing of it with a display, or when the provider does not offer it', async () => {
    for (const [h, noDisplay] of [
      [withDeviceFlow(), false],
      [skiffTestbed(), true],
    ] as const) {
      h.browser.onOpen = (url) =>
        h.listener.deliver(`/callback?code=c&state=${new URL(url).searchParams.get('state')}`);
      h.provider.tokenReplies = [reply];
      await h.get(SsoLogin).execute({ target: {}, openBrowser: true, noDisplay });
      expect(h.notifier.infos.join('\n')).not.toContain('--device');
    }
  });
});

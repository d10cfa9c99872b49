import { DeviceLogin } from '../../../../src/application/login/auth/device-login.use-case';
import { GetToken } from '../../../../src/application/login/auth/get-token.use-case';
import { SsoLogin } from '../../../../src/application/login/auth/sso-login.use-case';
import { fakeSignedJwt } from '../../../../src/adapters/fakes/login/fake-id-token-verifier';
import { IdentityError, NetworkError } from '../../../../src/domain/shared/errors';
import { SkiffTestbed, skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { expiringIn, idToken, issueWithNonce, NOW } from '../../../support/tokens';
import { waitFor } from '../../../support/wait-for';

/** Lets the device sign-in reach its first sleep, then moves the fake clock past it. */
async function tick(h: SkiffTestbed): Promise<void> {
  await waitFor('the next sleep', () => h.clock.pendingSleeps === 1);
  h.clock.advance(5000);
}

/** The browser side of the code flow: the provider learns the nonce from the URL, the callback comes back. */
function userCompletes(h: SkiffTestbed, stamp = true): void {
  h.browser.onOpen = (url) => {
    if (stamp) issueWithNonce(h.provider, url);
    h.listener.deliver(`/callback?code=the-code&state=${new URL(url).searchParams.get('state')}`);
  };
}

const reply = (token: string | undefined) => ({
  accessToken: 'access-9',
  refreshToken: 'refresh-9',
  expiresIn: 900,
  ...(token === undefined ? {} : { idToken: token }),
});

async function refused(run: Promise<unknown>): Promise<string> {
  const err = await run.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(IdentityError);
  return (err as Error).message;
}

describe('id_tokens verified on receipt (docs/login-contract.md, "Verified id_tokens")', () => {
  describe('the browser sign-in', () => {
    it('verifies the id_token against the discovered jwks_uri and issuer, for skiff-cli, at the clock, with the nonce sent', async () => {
      const h = skiffTestbed();
      h.provider.tokenReplies = [reply(idToken({ email: 'alice@example.com' }))];
      userCompletes(h);
      await expect(h.get(SsoLogin).execute({ target: {}, openBrowser: true })).resolves.toEqual({
        domain: 'example.com',
        email: 'alice@example.com',
      });
      const nonce = new URL(h.browser.opened[0]).searchParams.get('nonce');
      expect(h.verifier.verifications).toHaveLength(1);
      expect(h.verifier.verifications[0].verification).toEqual({
        jwksUri: 'https://auth.example.com/jwks',
        issuer: 'https://auth.example.com',
        clientId: 'skiff-cli',
        now: NOW,
        nonce,
      });
      expect(h.cache.records.get('example.com')?.accessToken).toBe('access-9');
    });

    it.each([
      [
        'a forged signature',
        () => fakeSignedJwt({ sub: 'alice' }, { secret: 'forged' }),
        /bad signature: it does not verify/,
      ],
      [
        'a key outside the JWKS',
        () => fakeSignedJwt({ sub: 'alice' }, { kid: 'stranger' }),
        /bad signature: .*not in the provider's JWKS/,
      ],
      [
        'the wrong audience',
        () => idToken({ aud: 'another-app' }),
        /wrong audience: "another-app" does not contain "skiff-cli"/,
      ],
      [
        'the wrong issuer',
        () => idToken({ iss: 'https://evil.example' }),
        /wrong issuer: "https:\/\/evil.example", expected "https:\/\/auth.example.com"/,
      ],
      ['an expired id_token', () => idToken({ exp: NOW.getTime() / 1000 - 61 }), /expired at/],
      ['another nonce', () => idToken({ nonce: 'not-the-one' }), /nonce mismatch: not the nonce of this sign-in/],
    ])('%s is refused (identity error naming it) and nothing is cached', async (_what, make, reason) => {
      const h = skiffTestbed();
      h.provider.tokenReplies = [reply(make())];
      userCompletes(h);
      const message = await refused(h.get(SsoLogin).execute({ target: {}, openBrowser: true }));
      expect(message).toMatch(reason);
      expect(message).toMatch(/^the id_token from the identity provider was refused: .*nothing was stored/);
      expect(h.cache.records.size).toBe(0);
    });

    it('an id_token without the nonce sent is refused', async () => {
      const h = skiffTestbed();
      h.provider.tokenReplies = [reply(idToken({}))];
      userCompletes(h, false);
      expect(await refused(h.get(SsoLogin).execute({ target: {}, openBrowser: true }))).toMatch(
        /nonce mismatch: it carries no nonce/,
      );
      expect(h.cache.records.size).toBe(0);
    });

    it('a provider that sends no id_token signs in as before, nothing verified', async () => {
      const h = skiffTestbed();
      h.provider.tokenReplies = [reply(undefined)];
      userCompletes(h);
      await expect(h.get(SsoLogin).execute({ target: {}, openBrowser: true })).resolves.toEqual({
        domain: 'example.com',
      });
      expect(h.verifier.verifications).toHaveLength(0);
      expect(h.cache.records.get('example.com')?.accessToken).toBe('access-9');
    });

    it('an id_token from a provider without a jwks_uri cannot be verified: refused', async () => {
      const h = skiffTestbed();
      h.provider.metadata = { ...h.provider.metadata, jwksUri: undefined };
      h.provider.tokenReplies = [reply(idToken({}))];
      userCompletes(h);
      expect(await refused(h.get(SsoLogin).execute({ target: {}, openBrowser: true }))).toMatch(/no jwks_uri/);
      expect(h.cache.records.size).toBe(0);
    });

    it('signing keys that cannot be fetched: the network error, nothing cached', async () => {
      const h = skiffTestbed();
      h.verifier.jwksStatus = 503;
      h.provider.tokenReplies = [reply(idToken({}))];
      userCompletes(h);
      await expect(h.get(SsoLogin).execute({ target: {}, openBrowser: true })).rejects.toBeInstanceOf(NetworkError);
      expect(h.cache.records.size).toBe(0);
    });
  });

  describe('the device sign-in', () => {
    const withDevice = () => {
      const h = skiffTestbed();
      h.provider.metadata = { ...h.provider.metadata, deviceAuthorizationEndpoint: 'https://auth.example.com/device' };
      return h;
    };

    it('verifies without a nonce (the grant has no authorization request to carry one)', async () => {
      const h = withDevice();
      h.device.polls = [{ outcome: 'granted', reply: reply(idToken({ email: 'bob@example.com' })) }];
      const done = h.get(DeviceLogin).execute({ target: {}, openBrowser: false });
      await tick(h);
      await expect(done).resolves.toEqual({ domain: 'example.com', email: 'bob@example.com' });
      expect(h.verifier.verifications[0].verification.nonce).toBeUndefined();
    });

    it('a refused id_token: identity error, nothing cached', async () => {
      const h = withDevice();
      h.device.polls = [{ outcome: 'granted', reply: reply(idToken({ aud: ['other'] })) }];
      const done = h.get(DeviceLogin).execute({ target: {}, openBrowser: false });
      await tick(h);
      expect(await refused(done)).toMatch(/wrong audience/);
      expect(h.cache.records.size).toBe(0);
    });
  });

  describe('the refresh', () => {
    it("verifies a refreshed id_token, expecting the session's subject; the record is written", async () => {
      const h = skiffTestbed();
      h.cache.records.set('example.com', expiringIn(-10, { idToken: idToken({ sub: 'alice' }) }));
      h.provider.tokenReplies = [reply(idToken({ sub: 'alice', email: 'new@example.com' }))];
      await expect(h.get(GetToken).execute({})).resolves.toBe('access-9');
      expect(h.verifier.verifications[0].verification.subject).toBe('alice');
      expect(h.verifier.verifications[0].verification.nonce).toBeUndefined();
    });

    it('a refused id_token: the warning names it, then session expired; the cache is unchanged', async () => {
      const h = skiffTestbed();
      const before = expiringIn(-10, { idToken: idToken({ sub: 'alice' }) });
      h.cache.records.set('example.com', before);
      h.provider.tokenReplies = [reply(idToken({ sub: 'mallory' }))];
      expect(await refused(h.get(GetToken).execute({}))).toMatch(/session expired/);
      expect(h.notifier.warnings[0]).toMatch(/token refresh failed: the id_token .* refused: wrong subject: "mallory"/);
      expect(h.cache.records.get('example.com')).toBe(before);
    });

    it('a refresh reply without an id_token keeps the old one, nothing verified', async () => {
      const h = skiffTestbed();
      const before = expiringIn(-10);
      h.cache.records.set('example.com', before);
      h.provider.tokenReplies = [{ accessToken: 'access-2' }];
      await h.get(GetToken).execute({});
      expect(h.verifier.verifications).toHaveLength(0);
      expect(h.cache.records.get('example.com')?.idToken).toBe(before.idToken);
    });
  });
});

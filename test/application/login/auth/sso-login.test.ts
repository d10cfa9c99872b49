import { createHash } from 'node:crypto';
import { SsoLogin, SsoLoginInput } from '../../../../src/application/login/auth/sso-login.use-case';
import { CALLBACK_WAIT_MS } from '../../../../src/domain/login/auth/callback-request';
import { ConfigurationError, IdentityError, NetworkError } from '../../../../src/domain/shared/errors';
import { SkiffTestbed, skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { aRecord, idToken, issueWithNonce, NOW } from '../../../support/tokens';
import { waitFor } from '../../../support/wait-for';

const input = (over: Partial<SsoLoginInput> = {}): SsoLoginInput => ({ target: {}, openBrowser: true, ...over });

/** The browser side: once the URL is opened, come back with this code and the URL's state (or another). */
function userCompletes(
  h: SkiffTestbed,
  callback: (url: URL) => string = (u) => `/callback?code=the-code&state=${u.searchParams.get('state')}`,
) {
  h.browser.onOpen = (url) => {
    issueWithNonce(h.provider, url);
    h.listener.deliver(callback(new URL(url)));
  };
}

function loggedInReply() {
  return {
    accessToken: 'access-9',
    refreshToken: 'refresh-9',
    expiresIn: 900,
    idToken: idToken({ email: 'alice@example.com' }),
  };
}

describe('SSO login (steps 1-13)', () => {
  it('completes: discovery, PKCE, callback, code exchange, cache written with gitea_token absent', async () => {
    const h = skiffTestbed();
    h.cache.records.set('example.com', aRecord({ giteaToken: 'old-git' }));
    h.provider.tokenReplies = [loggedInReply()];
    userCompletes(h);
    const result = await h.get(SsoLogin).execute(input());
    expect(result).toEqual({ domain: 'example.com', email: 'alice@example.com' });
    const record = h.cache.records.get('example.com');
    expect(record).toMatchObject({ accessToken: 'access-9', refreshToken: 'refresh-9', domain: 'example.com' });
    expect(record?.giteaToken).toBeUndefined();
    expect(record?.expiresAt).toEqual(new Date(NOW.getTime() + 900_000));
    // Exactly the specification's fields: no scope, no kind of sign-in (both derived, never stored).
    expect(Object.keys(record ?? {}).sort()).toEqual(['accessToken', 'domain', 'expiresAt', 'idToken', 'refreshToken']);
  });

  it('step 1: prints the resolved domain', async () => {
    const h = skiffTestbed();
    h.provider.tokenReplies = [loggedInReply()];
    userCompletes(h);
    await h.get(SsoLogin).execute(input());
    expect(h.notifier.infos[0]).toBe('Signing in to example.com');
  });

  it('step 2: discovery at https://auth.<domain>; a failure status is a network error and nothing listens', async () => {
    const h = skiffTestbed();
    h.provider.discoveryStatus = 500;
    await expect(h.get(SsoLogin).execute(input())).rejects.toBeInstanceOf(NetworkError);
    expect(h.provider.discoveries).toEqual(['https://auth.example.com']);
    expect(h.listener.requestedPort).toBe('not listened');
  });

  it('steps 3-6: 32 + 16 + 16 random bytes; the URL carries the S256 challenge of the verifier sent at step 11', async () => {
    const h = skiffTestbed();
    h.provider.tokenReplies = [loggedInReply()];
    userCompletes(h);
    await h.get(SsoLogin).execute(input());
    expect(h.random.requests).toEqual([32, 16, 16]);
    const url = new URL(h.browser.opened[0]);
    const call = h.provider.tokenCalls[0];
    if (call.grant !== 'authorization_code') throw new Error('expected a code exchange');
    const { codeVerifier } = call.request;
    expect(codeVerifier).toHaveLength(43);
    expect(url.searchParams.get('code_challenge')).toBe(createHash('sha256').update(codeVerifier).digest('base64url'));
    expect(url.searchParams.get('state')).toHaveLength(22);
    expect(url.searchParams.get('nonce')).toHaveLength(22);
    expect(url.searchParams.get('nonce')).not.toBe(url.searchParams.get('state'));
    expect([...url.searchParams.keys()].at(-1)).toBe('nonce');
    expect(url.searchParams.get('redirect_uri')).toBe('http://localhost:9876/callback');
    expect(h.browser.opened[0].startsWith('https://auth.example.com/auth?client_id=skiff-cli&redirect_uri=')).toBe(
      true,
    );
  });

  it('step 7: the URL is printed even when the browser opens, and without --no-browser only', async () => {
    const h = skiffTestbed();
    h.provider.tokenReplies = [loggedInReply()];
    userCompletes(h);
    await h.get(SsoLogin).execute(input());
    expect(h.notifier.all).toContain(h.browser.opened[0]);
  });

  it('--no-browser: no browser, the URL printed; a failing browser is not fatal', async () => {
    const h = skiffTestbed();
    h.provider.tokenReplies = [loggedInReply()];
    h.listener.onListen = () => undefined;
    const run = h.get(SsoLogin).execute(input({ openBrowser: false }));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const printed = h.notifier.infos.find((l) => l.includes('/auth?client_id='));
    expect(printed).toBeDefined();
    const state = new URL((printed as string).trim().split(/\s+/).pop() as string).searchParams.get('state');
    issueWithNonce(h.provider, (printed as string).trim().split(/\s+/).pop() as string);
    h.listener.deliver(`/callback?code=c&state=${state}`);
    await run;
    expect(h.browser.opened).toHaveLength(0);

    const h2 = skiffTestbed();
    h2.provider.tokenReplies = [loggedInReply()];
    h2.browser.works = false;
    userCompletes(h2);
    await expect(h2.get(SsoLogin).execute(input())).resolves.toMatchObject({ email: 'alice@example.com' });
    expect(h2.notifier.all).toMatch(/open the URL above yourself/);
  });

  it('--port pins the callback port, the redirect URI follows it', async () => {
    const h = skiffTestbed();
    h.provider.tokenReplies = [loggedInReply()];
    userCompletes(h);
    await h.get(SsoLogin).execute(input({ port: 43123 }));
    expect(h.listener.requestedPort).toBe(43123);
    expect(new URL(h.browser.opened[0]).searchParams.get('redirect_uri')).toBe('http://localhost:43123/callback');
  });

  it('step 8: waits with a clear line; after 300 s without a callback: login timed out after 5 minutes', async () => {
    const h = skiffTestbed();
    const run = h
      .get(SsoLogin)
      .execute(input())
      .catch((e: unknown) => e);
    await waitFor('the login to wait for its callback', () => h.clock.pendingSleeps > 0);
    h.clock.advance(CALLBACK_WAIT_MS - 1);
    await new Promise((r) => setImmediate(r));
    h.clock.advance(1);
    const err = (await run) as Error;
    expect(err).toBeInstanceOf(IdentityError);
    expect(err.message).toMatch(/timed out after 5 minutes/);
    expect(h.notifier.waits[0]).toMatch(/Waiting for the browser/);
    expect(h.listener.closed).toBe(true);
    expect(h.cache.writes).toBe(0);
  });

  it.each([
    ['no query string', () => '/callback', /no query string/],
    ['no code', (u: URL) => `/callback?state=${u.searchParams.get('state')}`, /no code/],
    ['no state', () => '/callback?code=abc', /no state/],
    ['a forged state', () => '/callback?code=abc&state=forged', /CSRF/],
  ])(
    'step 9: a callback with %s is an identity error; the browser gets a failure page; nothing is exchanged',
    async (_, callback, message) => {
      const h = skiffTestbed();
      userCompletes(h, callback);
      const err = (await h
        .get(SsoLogin)
        .execute(input())
        .catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(IdentityError);
      expect(err.message).toMatch(message);
      expect(h.listener.replies).toEqual([{ kind: 'failure', reason: err.message }]);
      expect(h.provider.tokenCalls).toHaveLength(0);
      expect(h.cache.writes).toBe(0);
    },
  );

  it('step 10: success without a redirect for `auth sso`, with the redirect target when asked', async () => {
    const h = skiffTestbed();
    h.provider.tokenReplies = [loggedInReply(), loggedInReply()];
    userCompletes(h);
    await h.get(SsoLogin).execute(input());
    expect(h.listener.replies[0]).toEqual({ kind: 'success' });
    await h.get(SsoLogin).execute(input({ redirectTo: 'https://src.example.com/user/settings/applications' }));
    expect(h.listener.replies[1]).toEqual({
      kind: 'success',
      redirectTo: 'https://src.example.com/user/settings/applications',
    });
  });

  it('step 11: the token request carries the code as received, the redirect URI, the client id and the verifier', async () => {
    const h = skiffTestbed();
    h.provider.tokenReplies = [loggedInReply()];
    userCompletes(h, (u) => `/callback?code=a%2Fb&state=${u.searchParams.get('state')}`);
    await h.get(SsoLogin).execute(input());
    expect(h.provider.tokenCalls[0]).toMatchObject({
      grant: 'authorization_code',
      endpoint: 'https://auth.example.com/token',
      request: { code: 'a%2Fb', redirectUri: 'http://localhost:9876/callback', clientId: 'skiff-cli' },
    });
  });

  it('step 11: a refused exchange is an identity error with status and body; the cache is not touched', async () => {
    const h = skiffTestbed();
    h.provider.tokenReplies = [400];
    userCompletes(h);
    await expect(h.get(SsoLogin).execute(input())).rejects.toThrow(/HTTP 400.*invalid_grant/);
    expect(h.cache.writes).toBe(0);
  });

  it('step 12: defaults 3600 s and an empty refresh token; step 13: no email without a readable id_token', async () => {
    const h = skiffTestbed();
    h.provider.tokenReplies = [{ accessToken: 'a' }];
    userCompletes(h);
    const result = await h.get(SsoLogin).execute(input());
    expect(result.email).toBeUndefined();
    const record = h.cache.records.get('example.com');
    expect(record).toMatchObject({ refreshToken: '', domain: 'example.com' });
    expect(record?.expiresAt).toEqual(new Date(NOW.getTime() + 3600_000));
  });

  it('uses the domain given by `auth login` without resolving again', async () => {
    const h = skiffTestbed({ contexts: [] });
    h.provider.tokenReplies = [loggedInReply()];
    userCompletes(h);
    await expect(h.get(SsoLogin).execute(input({ domain: 'given.org' }))).resolves.toMatchObject({
      domain: 'given.org',
    });
    expect(h.discovery.calls).toBe(0);
    expect(h.cache.records.get('')?.domain).toBe('given.org');
  });

  it('without any domain source: the configuration error of step 5', async () => {
    const h = skiffTestbed({ contexts: [] });
    await expect(h.get(SsoLogin).execute(input())).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('a context overriding the identity provider is used for its own domain', async () => {
    const h = skiffTestbed({
      currentContext: 'dev',
      contexts: [{ name: 'dev', domain: 'dev.org', identityProviderUrl: 'http://127.0.0.1:5556' }],
    });
    h.provider.tokenReplies = [loggedInReply()];
    userCompletes(h);
    await h.get(SsoLogin).execute(input());
    expect(h.provider.discoveries).toEqual(['http://127.0.0.1:5556']);
  });
});

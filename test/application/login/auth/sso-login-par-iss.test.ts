import { SsoLogin, SsoLoginInput } from '../../../../src/application/login/auth/sso-login.use-case';
import { ConfigurationError, IdentityError } from '../../../../src/domain/shared/errors';
import { SkiffTestbed, skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';
import { idToken, issueWithNonce } from '../../../support/tokens';
import { SEED_AUTHORIZATION_PARAMETERS } from '../../../support/seed-authorization';

/**
 * Pushed authorization requests (RFC 9126) and the issuer of the callback (RFC 9207):
 * docs/login-contract.md, "Pushed authorization requests" and SSO step 9.
 */

const input: SsoLoginInput = { target: {}, openBrowser: true };
const reply = () => ({
  accessToken: 'access-9',
  refreshToken: 'refresh-9',
  idToken: idToken({ email: 'a@example.com' }),
});
const PAR = 'https://auth.example.com/request';

/** The browser side: with a pushed request the parameters are the ones pushed, else the URL's. */
function userCompletes(h: SkiffTestbed, extra: (url: URL) => string = () => '') {
  h.browser.onOpen = (opened) => {
    const url = new URL(opened);
    const pushed = h.provider.pushes.at(-1);
    const params =
      pushed === undefined
        ? url.searchParams
        : new URLSearchParams(pushed.parameters.map(([k, v]): [string, string] => [k, v]));
    issueWithNonce(h.provider, `https://x/?nonce=${params.get('nonce')}`);
    h.listener.deliver(`/callback?code=the-code&state=${params.get('state')}${extra(url)}`);
  };
}

describe('pushed authorization requests', () => {
  it('the provider requires them: the seven parameters and the nonce pushed, the browser gets client_id and request_uri only', async () => {
    const h = skiffTestbed();
    h.provider.metadata = {
      ...h.provider.metadata,
      pushedAuthorizationRequestEndpoint: PAR,
      requirePushedAuthorizationRequests: true,
    };
    h.provider.tokenReplies = [reply()];
    userCompletes(h);
    await h.get(SsoLogin).execute(input);
    expect(h.provider.pushes).toHaveLength(1);
    const { endpoint, parameters } = h.provider.pushes[0];
    expect(endpoint).toBe(PAR);
    expect(parameters.map(([k]) => k)).toEqual(SEED_AUTHORIZATION_PARAMETERS);
    expect(h.browser.opened).toEqual([
      'https://auth.example.com/auth?client_id=skiff-cli&request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3Afake-1',
    ]);
    const exchange = h.provider.tokenCalls[0];
    expect(exchange.grant === 'authorization_code' && exchange.request.redirectUri).toBe(
      new Map(parameters.map(([k, v]) => [k, v])).get('redirect_uri'),
    );
  });

  it('offered but not required, and the context does not ask: the URL of step 6, nothing pushed', async () => {
    const h = skiffTestbed();
    h.provider.metadata = { ...h.provider.metadata, pushedAuthorizationRequestEndpoint: PAR };
    h.provider.tokenReplies = [reply()];
    userCompletes(h);
    await h.get(SsoLogin).execute(input);
    expect(h.provider.pushes).toEqual([]);
    expect(new URL(h.browser.opened[0]).searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('the context asks (par: always): pushed; a provider without the endpoint is a configuration error before any listener', async () => {
    const contexts = {
      currentContext: 'local',
      contexts: [{ name: 'local', domain: 'example.com', par: 'always' as const }],
    };
    const h = skiffTestbed(contexts);
    h.provider.metadata = { ...h.provider.metadata, pushedAuthorizationRequestEndpoint: PAR };
    h.provider.tokenReplies = [reply()];
    userCompletes(h);
    await h.get(SsoLogin).execute(input);
    expect(h.provider.pushes).toHaveLength(1);

    const without = skiffTestbed(contexts);
    const err = await without
      .get(SsoLogin)
      .execute(input)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toContain('skiff config set --no-par');
    expect(without.browser.opened).toEqual([]);
  });

  it('a refused push is the identity error, nothing opened, nothing cached', async () => {
    const h = skiffTestbed();
    h.provider.metadata = {
      ...h.provider.metadata,
      pushedAuthorizationRequestEndpoint: PAR,
      requirePushedAuthorizationRequests: true,
    };
    h.provider.pushReply = 400;
    await expect(h.get(SsoLogin).execute(input)).rejects.toBeInstanceOf(IdentityError);
    expect(h.browser.opened).toEqual([]);
    expect(h.cache.records.get('example.com')).toBeUndefined();
  });
});

describe('the issuer in the callback (RFC 9207)', () => {
  const advertised = (h: SkiffTestbed) =>
    (h.provider.metadata = { ...h.provider.metadata, authorizationResponseIssParameterSupported: true });

  it('advertised and the discovered issuer, form-encoded: signed in', async () => {
    const h = skiffTestbed();
    advertised(h);
    h.provider.tokenReplies = [reply()];
    userCompletes(h, () => `&iss=${encodeURIComponent('https://auth.example.com')}`);
    await expect(h.get(SsoLogin).execute(input)).resolves.toMatchObject({ email: 'a@example.com' });
  });

  it.each([
    ['missing', () => ''],
    ['another issuer', () => `&iss=${encodeURIComponent('https://evil.example')}`],
    ['the issuer with a trailing slash', () => `&iss=${encodeURIComponent('https://auth.example.com/')}`],
  ])(
    'advertised and %s: an identity error naming the mix-up, the browser told, no code exchanged',
    async (_, extra) => {
      const h = skiffTestbed();
      advertised(h);
      h.provider.tokenReplies = [reply()];
      userCompletes(h, extra);
      const err = await h
        .get(SsoLogin)
        .execute(input)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdentityError);
      expect((err as Error).message).toMatch(
        /the issuer https:\/\/auth\.example\.com this sign-in was sent to: possible mix-up attack \(RFC 9207\)/,
      );
      expect((err as Error).message).not.toContain('evil');
      expect(h.provider.tokenCalls).toEqual([]);
      expect(h.listener.replies.at(-1)).toMatchObject({ kind: 'failure' });
    },
  );

  it('not advertised: a callback without iss signs in as the seed says; one with another iss is still refused', async () => {
    const h = skiffTestbed();
    h.provider.tokenReplies = [reply()];
    userCompletes(h);
    await expect(h.get(SsoLogin).execute(input)).resolves.toMatchObject({ domain: 'example.com' });

    const forged = skiffTestbed();
    forged.provider.tokenReplies = [reply()];
    userCompletes(forged, () => '&iss=https%3A%2F%2Fevil.example');
    await expect(forged.get(SsoLogin).execute(input)).rejects.toBeInstanceOf(IdentityError);
  });
});

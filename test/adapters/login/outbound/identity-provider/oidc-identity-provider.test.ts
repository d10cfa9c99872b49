import { OidcIdentityProvider } from '../../../../../src/adapters/login/outbound/identity-provider/oidc-identity-provider';
import { HttpClient } from '../../../../../src/adapters/login/helpers/http-client';
import { IdentityError, NetworkError } from '../../../../../src/domain/shared/errors';
import { identityProviderContract, IdentityProviderWorld } from '../../../../contract/login/identity-provider.contract';
import { FakeIdentityProvider } from '../../../../../src/adapters/fakes/login/fake-identity-provider';
import { formFields, HttpStub } from '../../../../support/http-stub';

identityProviderContract('FakeIdentityProvider', async () => {
  const provider = new FakeIdentityProvider();
  const world: IdentityProviderWorld = {
    provider,
    issuer: 'https://auth.example.com',
    serveDiscovery(status, doc) {
      if (status !== 200 || doc === undefined) {
        provider.discoveryStatus = status;
        return;
      }
      provider.metadata = {
        issuer: doc.issuer ?? 'https://auth.example.com',
        authorizationEndpoint: doc.authorization_endpoint,
        tokenEndpoint: doc.token_endpoint,
        ...(doc.revocation_endpoint ? { revocationEndpoint: doc.revocation_endpoint } : {}),
        ...(doc.jwks_uri ? { jwksUri: doc.jwks_uri } : {}),
      };
    },
    serveToken(status, body) {
      if (status !== 200 || typeof body === 'string') {
        provider.tokenReplies.push(status);
        provider.failureBody = String(body);
        return;
      }
      const optional = (key: string, name: string) => (body[key] === undefined ? {} : { [name]: body[key] });
      provider.tokenReplies.push({
        accessToken: body.access_token as string,
        ...optional('refresh_token', 'refreshToken'),
        ...optional('expires_in', 'expiresIn'),
        ...optional('id_token', 'idToken'),
      });
    },
    lastTokenForm(): Record<string, string> {
      const call = provider.tokenCalls.at(-1);
      if (call === undefined) return {};
      return call.grant === 'authorization_code'
        ? {
            grant_type: call.grant,
            code: call.request.code,
            redirect_uri: call.request.redirectUri,
            client_id: call.request.clientId,
            code_verifier: call.request.codeVerifier,
          }
        : call.grant === 'refresh_token'
          ? { grant_type: call.grant, refresh_token: call.refreshToken, client_id: call.clientId }
          : call.grant === 'token_exchange'
            ? {
                grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
                client_id: call.request.clientId,
                subject_token: call.request.subjectToken,
                subject_token_type: call.request.subjectTokenType,
                requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
              }
            : { grant_type: call.grant };
    },
    close: async () => undefined,
  };
  return world;
});

identityProviderContract('OidcIdentityProvider over HTTP', async () => {
  const stub = await HttpStub.start();
  const tokenReplies: Array<{ status: number; body: unknown }> = [];
  stub.on('POST /token', () => tokenReplies.shift() ?? { status: 500 });
  return {
    provider: new OidcIdentityProvider(new HttpClient()),
    issuer: stub.url,
    serveDiscovery(status, doc) {
      stub.on('GET /.well-known/openid-configuration', { status, body: doc ?? { error: 'down' } });
    },
    serveToken(status, body) {
      tokenReplies.push({ status, body });
    },
    lastTokenForm: () => formFields(stub.requests.filter((r) => r.path === '/token').at(-1)?.body ?? ''),
    close: () => stub.close(),
  };
});

describe('OidcIdentityProvider against a misbehaving provider', () => {
  let stub: HttpStub;
  const provider = new OidcIdentityProvider(new HttpClient());
  beforeEach(async () => (stub = await HttpStub.start()));
  afterEach(() => stub.close());

  const discoveryError = async (reply: Parameters<HttpStub['on']>[1]) => {
    stub.on('GET /.well-known/openid-configuration', reply);
    const err = await provider.discover(stub.url, 2000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toContain(`127.0.0.1:${stub.port}`);
    return (err as Error).message;
  };

  it('HTML instead of JSON', async () => {
    expect(await discoveryError({ status: 200, body: '<html>login</html>', contentType: 'text/html' })).toMatch(
      /HTML page/,
    );
  });

  it('garbage', async () => {
    expect(await discoveryError({ status: 200, body: '\u0000\u0001garbage' })).toMatch(/not JSON/);
  });

  it('a document without endpoints, or with a plain-http endpoint on a public host', async () => {
    expect(await discoveryError({ body: { issuer: 'x' } })).toMatch(/authorization_endpoint/);
    expect(
      await discoveryError({
        body: { authorization_endpoint: 'http://evil.example.com/a', token_endpoint: 'https://x/t' },
      }),
    ).toMatch(/authorization_endpoint/);
  });

  it('nothing at all: bounded by the time-out', async () => {
    expect(await discoveryError({ hang: true })).toMatch(/no reply .* within 2 s/);
  });

  it('500 on the token endpoint: identity error with status and body, the secrets we sent redacted', async () => {
    stub.on('POST /token', { status: 500, body: 'refresh token rt-secret-123 is broken\n<trace>' });
    const err = (await provider
      .refresh(`${stub.url}/token`, 'rt-secret-123', 'skiff-cli')
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(IdentityError);
    expect(err.message).toMatch(/HTTP 500: refresh token \[redacted\] is broken <trace>/);
    expect(err.message).not.toContain('rt-secret-123');
  });

  it('a provider that echoes the refresh request: the token redacted in every form it can come back in', async () => {
    const secret = 'RT+SECRET/with=chars ~!';
    stub.on('POST /token', (request) => ({
      status: 400,
      body:
        `bad request: ${request.body} | json ${JSON.stringify({ refresh_token: secret })}` +
        ` | b64 ${Buffer.from(`x:${secret}`).toString('base64')} | b64url ${Buffer.from(secret).toString('base64url')}`,
    }));
    const err = (await provider.refresh(`${stub.url}/token`, secret, 'skiff-cli').catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(IdentityError);
    expect(err.message).toMatch(
      /HTTP 400: bad request: grant_type=refresh_token&refresh_token=\[redacted\]&client_id=skiff-cli/,
    );
    for (const form of [
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ t: secret }).toString().slice(2),
      JSON.stringify(secret).slice(1, -1),
      Buffer.from(secret).toString('base64url').slice(0, 24),
      Buffer.from(`x:${secret}`).toString('base64').slice(4, 28),
    ]) {
      expect(err.message).not.toContain(form);
    }
  });

  it('a refused pushed authorization request that echoes it: the state and nonce redacted in every form, escapes flattened', async () => {
    const [state, nonce] = ['st+ATE/secret=1', 'no+NCE/secret=2'];
    stub.on('POST /par', (request) => ({
      status: 400,
      body:
        `\u001b[31mrefused: ${request.body} | b64 ${Buffer.from(`${state}:${nonce}`).toString('base64')}` +
        ` | json ${JSON.stringify({ state, nonce })}`,
    }));
    const parameters: Array<[string, string]> = [
      ['client_id', 'skiff-cli'],
      ['state', state],
      ['nonce', nonce],
    ];
    const err = (await provider
      .pushAuthorizationRequest(`${stub.url}/par`, parameters)
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(IdentityError);
    expect(err.message).toMatch(
      /refused the pushed authorization request: HTTP 400: .*client_id=skiff-cli&state=\[redacted\]/,
    );
    expect(err.message).not.toContain('\u001b');
    for (const secret of [state, nonce])
      for (const form of [
        secret,
        encodeURIComponent(secret),
        JSON.stringify(secret).slice(1, -1),
        Buffer.from(`${state}:${nonce}`).toString('base64').slice(0, 12),
      ])
        expect(err.message).not.toContain(form);
  });

  it('a 200 without an access token is a network error', async () => {
    stub.on('POST /token', { body: { token_type: 'Bearer' } });
    await expect(provider.refresh(`${stub.url}/token`, 'rt', 'skiff-cli')).rejects.toThrow(/without an access_token/);
  });

  it("keeps nothing of a reply's scope: the cache holds the specification's fields only", async () => {
    stub.on('POST /token', { body: { access_token: 'a', scope: 'openid email' } });
    expect(await provider.refresh(`${stub.url}/token`, 'rt', 'skiff-cli')).toEqual({ accessToken: 'a' });
  });

  it('client credentials: client_secret_basic form-encodes id and secret in the header; _post puts them in the form', async () => {
    stub.on('POST /token', { body: { access_token: 'a', expires_in: 60 } });
    const request = { clientId: 'ci:bot', clientSecret: 's e+c', authMethod: 'client_secret_basic' as const };
    expect(await provider.clientCredentials(`${stub.url}/token`, request)).toEqual({ accessToken: 'a', expiresIn: 60 });
    expect(stub.requests[0].headers.authorization).toBe(
      `Basic ${Buffer.from('ci%3Abot:s%20e%2Bc').toString('base64')}`,
    );
    expect(stub.requests[0].body).toBe('grant_type=client_credentials');
    await provider.clientCredentials(`${stub.url}/token`, {
      ...request,
      authMethod: 'client_secret_post',
      scope: 'jobs',
    });
    expect(stub.requests[1].headers.authorization).toBeUndefined();
    expect(formFields(stub.requests[1].body)).toEqual({
      grant_type: 'client_credentials',
      scope: 'jobs',
      client_id: 'ci:bot',
      client_secret: 's e+c',
    });
  });

  it('client credentials refused: an identity error, the secret redacted', async () => {
    stub.on('POST /token', { status: 401, body: { error: 'invalid_client', echo: 'very-secret' } });
    const err = await provider
      .clientCredentials(`${stub.url}/token`, {
        clientId: 'ci',
        clientSecret: 'very-secret',
        authMethod: 'client_secret_post',
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as Error).message).toMatch(/refused the client credentials grant: HTTP 401: .*invalid_client/);
    expect((err as Error).message).not.toContain('very-secret');
  });

  it('discovery reads grant_types_supported and token_endpoint_auth_methods_supported when they are string lists', async () => {
    stub.on('GET /.well-known/openid-configuration', {
      body: {
        issuer: stub.url,
        authorization_endpoint: `${stub.url}/auth`,
        token_endpoint: `${stub.url}/token`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: 'client_secret_basic',
      },
    });
    const metadata = await provider.discover(stub.url);
    expect(metadata.grantTypesSupported).toEqual(['client_credentials']);
    expect(metadata.tokenEndpointAuthMethodsSupported).toBeUndefined();
  });

  it('sends a public-client form request (no secret, no Authorization header)', async () => {
    stub.on('POST /token', { body: { access_token: 'a' } });
    await provider.refresh(`${stub.url}/token`, 'rt', 'skiff-cli');
    const request = stub.requests[0];
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body).toBe('grant_type=refresh_token&refresh_token=rt&client_id=skiff-cli');
  });

  it('revokes with token, token_type_hint and client_id', async () => {
    stub.on('POST /revoke', { status: 200, body: '' });
    await provider.revoke(`${stub.url}/revoke`, 'rt', 'skiff-cli', 2000);
    expect(formFields(stub.requests[0].body)).toEqual({
      token: 'rt',
      token_type_hint: 'refresh_token',
      client_id: 'skiff-cli',
    });
  });
});

import { IdentityError, NetworkError } from '../../../src/domain/shared/errors';
import { IdentityProvider } from '../../../src/application/login/ports/identity-provider.port';

/** A provider to test, and the means to say what its remote side answers. */
export interface IdentityProviderWorld {
  readonly provider: IdentityProvider;
  readonly issuer: string;
  /** The discovery document (read fields) or a failure status. */
  serveDiscovery(
    status: number,
    doc?: {
      issuer?: string;
      authorization_endpoint: string;
      token_endpoint: string;
      revocation_endpoint?: string;
      jwks_uri?: string;
    },
  ): void;
  /** The next token endpoint reply: a JSON body with 200, or a failure status with a text body. */
  serveToken(status: number, body: Record<string, unknown> | string): void;
  /** The form fields of the last token request. */
  lastTokenForm(): Record<string, string>;
  close(): Promise<void>;
}

export function identityProviderContract(name: string, make: () => Promise<IdentityProviderWorld>): void {
  describe(`${name} honours the IdentityProvider contract`, () => {
    let world: IdentityProviderWorld;
    beforeEach(async () => (world = await make()));
    afterEach(() => world.close());

    const endpoints = () => ({
      authorization_endpoint: `${world.issuer}/auth`,
      token_endpoint: `${world.issuer}/token`,
      revocation_endpoint: `${world.issuer}/revoke`,
    });

    it('discovers the authorization, token and revocation endpoints', async () => {
      world.serveDiscovery(200, endpoints());
      await expect(world.provider.discover(world.issuer)).resolves.toEqual({
        issuer: world.issuer,
        authorizationEndpoint: `${world.issuer}/auth`,
        tokenEndpoint: `${world.issuer}/token`,
        revocationEndpoint: `${world.issuer}/revoke`,
      });
    });

    it('discovers the issuer and the jwks_uri; without an issuer field, the URL asked is the issuer', async () => {
      world.serveDiscovery(200, { ...endpoints(), issuer: 'https://issuer.example', jwks_uri: `${world.issuer}/jwks` });
      await expect(world.provider.discover(world.issuer)).resolves.toMatchObject({
        issuer: 'https://issuer.example',
        jwksUri: `${world.issuer}/jwks`,
      });
      world.serveDiscovery(200, endpoints());
      const metadata = await world.provider.discover(`${world.issuer}/`);
      expect(metadata.issuer).toBe(world.issuer);
      expect(metadata.jwksUri).toBeUndefined();
    });

    it('a discovery failure status is a network error stating it', async () => {
      world.serveDiscovery(503);
      const err = await world.provider.discover(world.issuer).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as Error).message).toContain('503');
    });

    it('exchanges a code with the fields of SSO step 11 and maps the reply', async () => {
      world.serveToken(200, {
        access_token: 'at',
        refresh_token: 'rt',
        expires_in: 300,
        id_token: 'a.b.c',
        token_type: 'Bearer',
      });
      const reply = await world.provider.exchangeCode(`${world.issuer}/token`, {
        code: 'the-code',
        redirectUri: 'http://localhost:9876/callback',
        clientId: 'skiff-cli',
        codeVerifier: 'v'.repeat(43),
      });
      expect(reply).toEqual({ accessToken: 'at', refreshToken: 'rt', expiresIn: 300, idToken: 'a.b.c' });
      expect(world.lastTokenForm()).toEqual({
        grant_type: 'authorization_code',
        code: 'the-code',
        redirect_uri: 'http://localhost:9876/callback',
        client_id: 'skiff-cli',
        code_verifier: 'v'.repeat(43),
      });
    });

    it('leaves absent optional reply fields absent', async () => {
      world.serveToken(200, { access_token: 'at' });
      const reply = await world.provider.refresh(`${world.issuer}/token`, 'rt', 'skiff-cli');
      expect(reply).toEqual({ accessToken: 'at' });
      expect(world.lastTokenForm()).toEqual({
        grant_type: 'refresh_token',
        refresh_token: 'rt',
        client_id: 'skiff-cli',
      });
    });

    it('the client credentials grant (basic): its reply mapped', async () => {
      world.serveToken(200, { access_token: 'robot', expires_in: 60, scope: 'jobs' });
      const reply = await world.provider.clientCredentials(`${world.issuer}/token`, {
        clientId: 'ci',
        clientSecret: 's3cret',
        authMethod: 'client_secret_basic',
      });
      expect(reply).toEqual({ accessToken: 'robot', expiresIn: 60 });
      expect(world.lastTokenForm()).toEqual({ grant_type: 'client_credentials' });
    });

    it('the token exchange (RFC 8693 §2.1): the public client, the subject token and its type, an access token asked for', async () => {
      world.serveToken(200, {
        access_token: 'platform',
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        token_type: 'Bearer',
        expires_in: 120,
      });
      const reply = await world.provider.tokenExchange(`${world.issuer}/token`, {
        clientId: 'skiff-cli',
        subjectToken: 'ci.jwt.token',
        subjectTokenType: 'urn:ietf:params:oauth:token-type:jwt',
      });
      expect(reply).toEqual({ accessToken: 'platform', expiresIn: 120 });
      expect(world.lastTokenForm()).toEqual({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        client_id: 'skiff-cli',
        subject_token: 'ci.jwt.token',
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      });
    });

    it('a refused token exchange: an identity error with the status and body, the subject token redacted', async () => {
      const subjectToken = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaSJ9.c2ln';
      world.serveToken(400, `{"error":"invalid_grant","error_description":"bad subject_token ${subjectToken}"}`);
      const err = await world.provider
        .tokenExchange(`${world.issuer}/token`, {
          clientId: 'skiff-cli',
          subjectToken,
          subjectTokenType: 'urn:ietf:params:oauth:token-type:jwt',
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdentityError);
      expect((err as Error).message).toMatch(/refused the token exchange: HTTP 400: .*invalid_grant/);
      expect((err as Error).message).toContain('[redacted]');
      expect((err as Error).message).not.toContain(subjectToken);
    });

    it('a refused token request is an identity error with the status and the body', async () => {
      world.serveToken(400, '{"error":"invalid_grant"}');
      const err = await world.provider.refresh(`${world.issuer}/token`, 'rt', 'skiff-cli').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdentityError);
      expect((err as Error).message).toContain('400');
      expect((err as Error).message).toContain('invalid_grant');
    });
  });
}

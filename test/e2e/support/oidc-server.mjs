// A real OpenID provider (the oidc-provider package) on 127.0.0.1 and a random port,
// for the end-to-end tests: a public client `skiff-cli` (no secret, PKCE required,
// loopback redirect URIs on any port) that gets refresh tokens, accounts whose
// claims include `email`, the development login and consent pages, revocation, the
// device flow (RFC 8628). Prints one JSON line {"issuer": ...} when ready. GET /__stats
// counts token requests by grant type and status, and revocations, and lists the
// device polls. The environment tunes the device flow for tests: OIDC_DEVICE_TTL
// (seconds a device code lives), OIDC_DEVICE_INTERVAL (the polling interval announced),
// OIDC_DEVICE_SLOW_DOWN=1 (the first poll still pending is told slow_down).
// A confidential client `skiff-robot` (secret `robot-secret`) has the client credentials grant
// (RFC 6749 §4.4), authenticating with client_secret_basic; OIDC_CLIENT_AUTH=post makes the
// provider accept client_secret_post only (and the robot use it), OIDC_CLIENT_CREDENTIALS=0
// turns the grant off (it is then not in grant_types_supported).
// Token exchange (RFC 8693) through oidc-provider's registerGrantType, for the public client
// skiff-cli: the subject token must be a JWT (subject_token_type ...:jwt) from the stand-in CI
// issuer `https://ci.e2e.test` for the audience of this issuer, signed with the key whose public
// JWK the test passes in OIDC_EXCHANGE_JWK (ES256); then it issues an access token (the
// ClientCredentials model: opaque, 10 minutes). Refusals echo the subject token in their
// error_description, as a careless provider may, so the tests see skiff redact it.
// /__stats lists the `sub` of each subject token accepted. OIDC_TOKEN_EXCHANGE=0 leaves the
// grant unregistered (not in grant_types_supported).
// Pushed authorization requests (RFC 9126) are on, as oidc-provider has them by default;
// OIDC_REQUIRE_PAR=1 makes them required (require_pushed_authorization_requests in discovery).
// /__stats counts them by status (`par`). Every authorization response carries `iss` (RFC 9207).
// DPoP (RFC 9449) is on, as by default; OIDC_DPOP_REQUIRED=1 registers skiff-cli with
// dpop_bound_access_tokens (every token request of it must carry a proof), OIDC_DPOP_NONCE=1 makes
// the token endpoint demand a server nonce (use_dpop_nonce, RFC 9449 §8). Introspection (RFC 7662)
// is on for skiff-robot, so a resource stand-in can learn a token's cnf.jkt.
// Its id_tokens are signed with an RS256 key of its JWKS (kid e2e-1). GET /__id_token?mode=<mode>
// turns it into a stand-in whose token endpoint sends a bad id_token from then on, re-signed:
// `foreign-key` (a key outside its JWKS), `impostor` (another key under kid e2e-1), `audience`,
// `issuer`, `expired`, `no-nonce`, `nonce` (another nonce); `good` goes back to normal.
import { createServer } from 'node:http';
import { CompactSign, exportJWK, generateKeyPair, importJWK, jwtVerify } from 'jose';
import Provider from 'oidc-provider';

const signingKey = await generateKeyPair('RS256', { extractable: true });
const otherKey = await generateKeyPair('RS256', { extractable: true });
const privateJwk = { ...(await exportJWK(signingKey.privateKey)), kid: 'e2e-1', alg: 'RS256', use: 'sig' };
let idTokenMode = 'good';

/** The id_token as the current mode wants it, re-signed. */
async function tampered(idToken) {
  const claims = JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString('utf8'));
  const now = Math.floor(Date.now() / 1000);
  if (idTokenMode === 'audience') claims.aud = 'another-client';
  if (idTokenMode === 'issuer') claims.iss = 'https://evil.example';
  if (idTokenMode === 'expired') Object.assign(claims, { iat: now - 7200, exp: now - 3600 });
  if (idTokenMode === 'no-nonce') delete claims.nonce;
  if (idTokenMode === 'nonce') claims.nonce = 'a-replayed-nonce';
  const foreign = idTokenMode === 'foreign-key' || idTokenMode === 'impostor';
  const kid = idTokenMode === 'foreign-key' ? 'outsider' : 'e2e-1';
  return new CompactSign(Buffer.from(JSON.stringify(claims)))
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid })
    .sign(foreign ? otherKey.privateKey : signingKey.privateKey);
}

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const postOnly = process.env.OIDC_CLIENT_AUTH === 'post';
const clientCredentials = process.env.OIDC_CLIENT_CREDENTIALS !== '0';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const tokenExchange = process.env.OIDC_TOKEN_EXCHANGE !== '0';
const ciKey = process.env.OIDC_EXCHANGE_JWK
  ? await importJWK(JSON.parse(process.env.OIDC_EXCHANGE_JWK), 'ES256')
  : undefined;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'skiff-cli',
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
      grant_types: [
        'authorization_code',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:device_code',
        ...(tokenExchange ? [TOKEN_EXCHANGE] : []),
      ],
      response_types: ['code'],
      ...(process.env.OIDC_DPOP_REQUIRED === '1' ? { dpop_bound_access_tokens: true } : {}),
    },
    {
      client_id: 'skiff-robot',
      client_secret: 'robot-secret',
      token_endpoint_auth_method: postOnly ? 'client_secret_post' : 'client_secret_basic',
      grant_types: clientCredentials ? ['client_credentials'] : [],
      redirect_uris: [],
      response_types: [],
    },
  ],
  clientAuthMethods: postOnly ? ['none', 'client_secret_post'] : ['none', 'client_secret_basic', 'client_secret_post'],
  jwks: { keys: [privateJwk] },
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: true },
    revocation: { enabled: true },
    deviceFlow: { enabled: true },
    clientCredentials: { enabled: clientCredentials },
    introspection: { enabled: true },
    dPoP: {
      enabled: true,
      ...(process.env.OIDC_DPOP_NONCE === '1' ? { nonceSecret: Buffer.alloc(32, 7), requireNonce: () => true } : {}),
    },
    pushedAuthorizationRequests: {
      enabled: true,
      requirePushedAuthorizationRequests: process.env.OIDC_REQUIRE_PAR === '1',
    },
  },
  ...(process.env.OIDC_DEVICE_TTL ? { ttl: { DeviceCode: Number(process.env.OIDC_DEVICE_TTL) } } : {}),
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  conformIdTokenClaims: false,
  // Refresh tokens for `offline_access` although the CLI sends no prompt=consent.
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  findAccount: async (_ctx, id) => ({
    accountId: id,
    claims: async () => ({ sub: id, email: `${id}@example.com`, email_verified: true, name: id }),
  }),
  cookies: { keys: ['skiff-e2e-only'] },
});

/** RFC 8693 §2.2: the token exchange's reply, or its refusal (§2.2.2: invalid_request, invalid_grant). */
async function exchange(ctx) {
  const { subject_token: subjectToken, subject_token_type: type, requested_token_type: requested } = ctx.oidc.params;
  const refuse = (error, why) => {
    ctx.status = 400;
    ctx.body = { error, error_description: `${why}; subject_token was ${subjectToken}` };
  };
  if (!subjectToken || !type) return refuse('invalid_request', 'subject_token and subject_token_type are required');
  if (type !== JWT_TYPE) return refuse('invalid_request', `unsupported subject_token_type ${type}`);
  if (requested && requested !== ACCESS_TOKEN_TYPE) return refuse('invalid_request', 'only access tokens are issued');
  try {
    if (!ciKey) throw new Error('no CI issuer key configured');
    const { payload } = await jwtVerify(subjectToken, ciKey, { issuer: 'https://ci.e2e.test', audience: issuer });
    stats.exchangedSubjects.push(payload.sub);
  } catch (err) {
    return refuse('invalid_grant', `the subject token is not accepted (${err.code ?? err.message})`);
  }
  const token = new provider.ClientCredentials({ client: ctx.oidc.client });
  ctx.body = {
    access_token: await token.save(),
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: 'Bearer',
    expires_in: token.expiration,
  };
}
if (tokenExchange) {
  provider.registerGrantType(TOKEN_EXCHANGE, exchange, [
    'subject_token',
    'subject_token_type',
    'requested_token_type',
    'actor_token',
    'actor_token_type',
    'audience',
    'resource',
    'scope',
  ]);
}

const stats = { token: {}, revocation: {}, devicePolls: [], exchangedSubjects: [], par: {} };
let slowDown = process.env.OIDC_DEVICE_SLOW_DOWN === '1';
provider.use(async (ctx, next) => {
  if (ctx.path === '/__stats') {
    ctx.body = stats;
    return;
  }
  if (ctx.path === '/__id_token') {
    idTokenMode = ctx.query.mode ?? 'good';
    ctx.body = { mode: idTokenMode };
    return;
  }
  await next();
  if (
    ctx.method === 'POST' &&
    ctx.path === '/token' &&
    ctx.status === 200 &&
    ctx.body?.id_token &&
    idTokenMode !== 'good'
  ) {
    ctx.body = { ...ctx.body, id_token: await tampered(ctx.body.id_token) };
  }
  if (ctx.method === 'POST' && ctx.path === '/device/auth' && ctx.status === 200 && process.env.OIDC_DEVICE_INTERVAL) {
    ctx.body = { ...ctx.body, interval: Number(process.env.OIDC_DEVICE_INTERVAL) };
  }
  if (ctx.method === 'POST' && ctx.path === '/token') {
    const grant = ctx.oidc?.params?.grant_type ?? 'unknown';
    if (grant.endsWith(':device_code')) {
      if (slowDown && ctx.body?.error === 'authorization_pending') {
        slowDown = false;
        ctx.body = { error: 'slow_down', error_description: 'you are polling too quickly' };
      }
      stats.devicePolls.push({ at: Date.now(), status: ctx.status, error: ctx.body?.error });
    }
    const key = `${grant}:${ctx.status}`;
    stats.token[key] = (stats.token[key] ?? 0) + 1;
  }
  if (ctx.method === 'POST' && ctx.path === '/request') {
    stats.par[ctx.status] = (stats.par[ctx.status] ?? 0) + 1;
  }
  if (ctx.method === 'POST' && ctx.path === '/token/revocation') {
    stats.revocation[ctx.status] = (stats.revocation[ctx.status] ?? 0) + 1;
  }
});

server.on('request', provider.callback());
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
process.on('SIGTERM', () => process.exit(0));

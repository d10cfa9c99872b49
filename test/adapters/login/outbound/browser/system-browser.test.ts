import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserCommands, SystemBrowser } from '../../../../../src/adapters/login/outbound/browser/system-browser';
import { shellScript } from '../../../../support/shell-script';
import { waitFor } from '../../../../support/wait-for';

const URL_ = 'https://auth.example.com/auth?client_id=skiff-cli&state=x;rm -rf $HOME';

describe('which browser is tried', () => {
  it('$BROWSER first (each ":"-separated entry, %s replaced), then xdg-open on Linux', () => {
    expect(browserCommands(URL_, { BROWSER: 'firefox --new-tab:lynx %s' }, 'linux')).toEqual([
      ['firefox', '--new-tab', URL_],
      ['lynx', URL_],
      ['xdg-open', URL_],
    ]);
  });

  it('open on macOS, nothing elsewhere', () => {
    expect(browserCommands(URL_, {}, 'darwin')).toEqual([['open', URL_]]);
    expect(browserCommands(URL_, {}, 'win32')).toEqual([]);
  });
});

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'skiff-browser-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('opening', () => {
  it('runs $BROWSER with the URL as one argument (no shell)', async () => {
    const out = join(dir, 'seen');
    const browser = shellScript(dir, 'browser', `printf '%s' "$1" > ${out}`);
    await expect(new SystemBrowser({ BROWSER: browser }, 'linux').open(URL_)).resolves.toBe(true);
    await waitFor('the browser to write what it was given', () => existsSync(out), 1000);
    expect(readFileSync(out, 'utf8')).toBe(URL_);
  });

  it('a failing or missing browser is not fatal: false, after trying the next one', async () => {
    const failing = shellScript(dir, 'failing', 'exit 3');
    const tried = join(dir, 'last-tried');
    const last = shellScript(dir, 'last', `touch ${tried}; exit 1`);
    await expect(
      new SystemBrowser({ BROWSER: `${failing}:${join(dir, 'missing')}:${last}` }, 'win32').open(URL_),
    ).resolves.toBe(false);
    expect(existsSync(tried)).toBe(true);
  });
});

// Whether a pending open() keeps a process alive can only be seen in a process of
// its own: the script awaits open() with nothing else on its event loop.
const BROWSER_JS = join(__dirname, '../../../../../dist/adapters/login/outbound/browser/system-browser.js');

function openInChild(browser: string): Promise<{ code: number | null; stdout: string; ms: number }> {
  const script = `
    const { SystemBrowser } = require(${JSON.stringify(BROWSER_JS)});
    new SystemBrowser({ BROWSER: ${JSON.stringify(browser)} }, 'linux').open('https://example.test/').then((ok) => process.stdout.write('opened=' + ok));`;
  const started = Date.now();
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['-e', script], { env: { PATH: '/usr/bin:/bin' } }, (err, stdout) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, ms: Date.now() - started }),
    );
    child.stdin?.end();
  });
}

describe('a pending browser launch and the event loop', () => {
  it('keeps the process alive until the launcher is judged (a launcher that exits 0 after a while)', async () => {
    const result = await openInChild(shellScript(dir, 'slow-ok', 'sleep 0.2; exit 0'));
    expect(result).toMatchObject({ code: 0, stdout: 'opened=true' });
  });

  it('a launcher that fails late is still judged: false, then the next command is tried', async () => {
    const tried = join(dir, 'next-tried');
    const next = shellScript(dir, 'next', `touch ${tried}`);
    const result = await openInChild(`${shellScript(dir, 'slow-fail', 'sleep 0.2; exit 1')}:${next}`);
    expect(result).toMatchObject({ code: 0, stdout: 'opened=true' });
    expect(existsSync(tried)).toBe(true);
  });

  it('a browser still running after the judging time counts as started and does not keep the process alive', async () => {
    const pidFile = join(dir, 'pid');
    const result = await openInChild(shellScript(dir, 'long', `echo $$ > ${pidFile}\nexec sleep 30`));
    try {
      expect(result).toMatchObject({ code: 0, stdout: 'opened=true' });
      expect(result.ms).toBeLessThan(5000);
    } finally {
      if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    }
  });
});

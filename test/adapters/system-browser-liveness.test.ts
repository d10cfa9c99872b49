import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Whether a pending open() keeps a process alive can only be seen in a process of
// its own: the script awaits open() with nothing else on its event loop.
const BROWSER_JS = join(__dirname, '../../dist/adapters/login/outbound/browser/system-browser.js');

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
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'skiff-browser-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const script = (name: string, body: string) => {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  };

  it('keeps the process alive until the launcher is judged (a launcher that exits 0 after a while)', async () => {
    const result = await openInChild(script('slow-ok', 'sleep 0.2; exit 0'));
    expect(result).toMatchObject({ code: 0, stdout: 'opened=true' });
  });

  it('a launcher that fails late is still judged: false, then the next command is tried', async () => {
    const result = await openInChild(`${script('slow-fail', 'sleep 0.2; exit 1')}:/bin/true`);
    expect(result).toMatchObject({ code: 0, stdout: 'opened=true' });
  });

  it('a browser still running after the judging time counts as started and does not keep the process alive', async () => {
    const pidFile = join(dir, 'pid');
    const result = await openInChild(script('long', `echo $$ > ${pidFile}\nexec sleep 30`));
    try {
      expect(result).toMatchObject({ code: 0, stdout: 'opened=true' });
      expect(result.ms).toBeLessThan(5000);
    } finally {
      process.kill(Number(require('node:fs').readFileSync(pidFile, 'utf8')), 'SIGKILL');
    }
  });
});

import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserCommands, SystemBrowser } from '../../src/adapters/login/outbound/browser/system-browser';

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

describe('opening', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'skiff-browser-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const script = (name: string, body: string) => {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  };

  it('runs $BROWSER with the URL as one argument (no shell)', async () => {
    const out = join(dir, 'seen');
    const browser = script('browser', `printf '%s' "$1" > ${out}`);
    await expect(new SystemBrowser({ BROWSER: browser }, 'linux').open(URL_)).resolves.toBe(true);
    for (let i = 0; i < 100 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 10));
    expect(readFileSync(out, 'utf8')).toBe(URL_);
  });

  it('a failing or missing browser is not fatal: false, after trying the next one', async () => {
    const failing = script('failing', 'exit 3');
    await expect(
      new SystemBrowser({ BROWSER: `${failing}:${join(dir, 'missing')}` }, 'win32').open(URL_),
    ).resolves.toBe(false);
  });
});

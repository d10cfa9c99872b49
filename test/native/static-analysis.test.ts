import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './support/c-build';

/** scripts/check-native.js, `npm run check`'s cppcheck of the C: it finds, and it cannot go quiet in CI. */
const SCRIPT = join(ROOT, 'scripts/check-native.js');
const HAS_CPPCHECK = spawnSync('cppcheck', ['--version']).status === 0;

function check(args: string[], env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', env });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

describe('the static analysis of the C', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-cppcheck-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says in one line which package it needs where cppcheck is missing, and fails with CI=true', () => {
    const dev = check([dir], { PATH: '/nonexistent', CI: '' });
    expect([dev.status, dev.stderr]).toEqual([
      0,
      'check-native: cppcheck is not installed, so the C in native/ was not analysed: apt-get install cppcheck\n',
    ]);
    const ci = check([dir], { PATH: '/nonexistent', CI: 'true' });
    expect(ci.status).toBe(1);
    expect(ci.stderr).toMatch(/apt-get install cppcheck \(CI=true makes this an error\)\n$/);
  });

  it('fails on a finding and names it', () => {
    writeFileSync(join(dir, 'bad.c'), 'int f(void) {\n  int a[4];\n  a[4] = 1;\n  return a[0];\n}\n');
    const result = check([dir], { ...process.env, CI: 'true' });
    expect(result.status).toBe(1);
    if (HAS_CPPCHECK) expect(result.stderr + result.stdout).toMatch(/bad\.c:3:.*\[arrayIndexOutOfBounds\]/);
    else expect(result.stderr).toMatch(/apt-get install cppcheck/);
  });
});

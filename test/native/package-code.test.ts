import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { PREBUILT } from '../e2e/package/support';
import { ROOT } from './support/c-build';
import { isCliModule, isCode, judgedIn, unjudgedCode } from './support/package-code';

interface Packed {
  readonly path: string;
  readonly mode: number;
}

/**
 * native/containerd-shim/package-code.c's rules are the one list of the package's code the shim
 * judges before it runs anything as root (docs/install.md, "Which Node.js the shim runs"). Held here
 * to what the package holds: `npm pack --dry-run --json`'s file list (without scripts, so prebuilds/,
 * which prepack makes, is added as install.test.ts finds it in the real tarball), walked by the C.
 */
describe("the package's code the shim judges as root", () => {
  const dry = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const packed = (JSON.parse(dry) as Array<{ files: Packed[] }>)[0].files;
  const files = [...packed.map((f) => f.path), ...PREBUILT];
  const judged = judgedIn(files);

  it('is every file of the package a root process could run or load: scripts, bundles, code caches, addons, executables', () => {
    const modes = new Map(packed.map((f) => [f.path, f.mode]));
    const code = files.filter((path) => isCode(path, modes.get(path)));
    expect(code).toEqual(expect.arrayContaining(['bin/run.js', 'dist/containerd.bundle.js.cache', ...PREBUILT]));
    expect(unjudgedCode(files, modes)).toEqual([]);
  });

  it("leaves out only what the serving process never loads: its bundle requires nothing of the package's", () => {
    // bin/loader.js's loadBundle gives the bundle its own require, so a relative name is taken from bin/.
    const bundle = readFileSync(join(ROOT, 'dist/containerd.bundle.js'), 'utf8');
    const relative = [...bundle.matchAll(/require\(["'](\.{1,2}\/[^"']+)["']\)/g)].map((m) => posix.join('bin', m[1]));
    const held = new Set(files);
    const loads = relative.flatMap((name) =>
      ['', '.js', '.json', '.node', '/index.js'].map((ext) => name + ext).filter((file) => held.has(file)),
    );
    expect(loads.filter((file) => !judged.has(file))).toEqual([]);
    expect(files.filter(isCliModule).length).toBeGreaterThan(0);
  });
});

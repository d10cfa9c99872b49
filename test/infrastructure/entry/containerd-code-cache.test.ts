import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The serving process runs with V8 flags of its own (native/common/serving-argv.c), and V8
// rejects a code cache made under other flags, or by another Node.js: the bundle then compiles
// as it loads, and the cache it read is wasted. The build writes dist/containerd.bundle.js.cache
// under the same flags (scripts/bundle.js); a serving process whose Node.js rejects it writes
// one of its own (bin/code-cache-writer.js). This reads the built bundle (`npm run build`) in
// Node processes started with those flags, as the shim starts them.
const ROOT = join(__dirname, '../../..');
const { servingNodeFlags } = require(join(ROOT, 'scripts/serving-node-flags')) as { servingNodeFlags(): string[] };

function cacheRejected(flags: readonly string[], root = ROOT): boolean {
  const script = `
    const fs = require('node:fs');
    const { Script } = require('node:vm');
    const file = ${JSON.stringify(join(root, 'dist/containerd.bundle.js'))};
    // Wrapped as bin/loader.js's loadBundle wraps it: the cache is of that source.
    const source = '(function (exports, require, module, __filename, __dirname) { ' + fs.readFileSync(file, 'utf8') + '\\n});';
    const compiled = new Script(source, { filename: file, cachedData: fs.readFileSync(file + '.cache') });
    process.stdout.write(String(compiled.cachedDataRejected));`;
  return execFileSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' }) === 'true';
}

describe('dist/containerd.bundle.js.cache', () => {
  it('lists the flags start and the pod keeper give Node', () => {
    expect(servingNodeFlags()).toContain('--max-semi-space-size=1');
  });

  it('is taken by V8 under the serving process flags', () => {
    expect(cacheRejected(servingNodeFlags())).toBe(false);
  });

  it("is written by a Node.js given the serving process's flags, none that runs code", () => {
    const { v8Flags } = require(join(ROOT, 'bin/code-cache-writer')) as { v8Flags(argv: string[]): string[] };
    expect(
      v8Flags(['--max-semi-space-size=1', '--no-opt', '-e', 'x()', '--require=y', '-r', 'z', '--stack-size=900']),
    ).toEqual(['--max-semi-space-size=1', '--no-opt', '--stack-size=900']);
  });

  describe("made by another Node.js (a package packed elsewhere), on the node's first serving process", () => {
    // A package of its own: bin's loader and writer beside the built bundle (which requires builtins alone).
    let pkg: string;
    const file = () => join(pkg, 'dist/containerd.bundle.js.cache');
    const serve = () =>
      spawnSync(
        process.execPath,
        [
          ...servingNodeFlags(),
          '-e',
          `const b = require(${JSON.stringify(join(pkg, 'bin/loader.js'))}).loadBundle('containerd', { writeCache: true });
           process.stdout.write(typeof b.runGroupServer);`,
        ],
        { encoding: 'utf8' },
      );
    beforeEach(() => {
      pkg = mkdtempSync(join(tmpdir(), 'skiff-code-cache-'));
      mkdirSync(join(pkg, 'bin'));
      mkdirSync(join(pkg, 'dist'));
      for (const f of ['loader.js', 'code-cache-writer.js']) copyFileSync(join(ROOT, 'bin', f), join(pkg, 'bin', f));
      copyFileSync(join(ROOT, 'dist/containerd.bundle.js'), join(pkg, 'dist/containerd.bundle.js'));
      // What V8 rejects as it rejects another build's: not a cache of this one.
      writeFileSync(file(), Buffer.alloc(4096, 7));
    });
    afterEach(() => rmSync(pkg, { recursive: true, force: true }));

    it('is written anew for this Node.js, every function compiled, and taken from then on', () => {
      const first = serve();
      expect(first.stdout).toBe('function');
      expect(first.stderr).toBe(
        `skiff: ${file()} was made by another Node.js: written anew for Node.js ${process.version} (docs/performance.md)\n`,
      );
      expect(cacheRejected(servingNodeFlags(), pkg)).toBe(false);
      // Eager: the build's eager cache is as large (a lazy one is a quarter of it).
      expect(statSync(file()).size).toBeGreaterThan(0.8 * statSync(join(ROOT, 'dist/containerd.bundle.js.cache')).size);
      expect(statSync(file()).mode & 0o777).toBe(0o644);
      const cache = readFileSync(file());
      const next = serve();
      expect(next).toMatchObject({ stdout: 'function', stderr: '' });
      expect(readFileSync(file()).equals(cache)).toBe(true);
    });

    it('loads the bundle as before, in one line saying so, where the cache cannot be written', () => {
      rmSync(file());
      // rename(2) of the new cache over a directory fails, as over a read-only package.
      mkdirSync(file());
      const served = serve();
      expect(served.stdout).toBe('function');
      expect(served.stderr).toMatch(
        new RegExp(
          `^skiff: ${file()} was made by another Node.js and could not be written for Node.js ${process.version} \\(.*EISDIR.*\\): the first calls compile as they run \\(docs/performance.md\\)\\n$`,
        ),
      );
    });
  });
});

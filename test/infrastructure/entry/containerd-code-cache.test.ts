import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// The serving process runs with V8 flags of its own (native/common/serving-argv.c), and V8
// rejects a code cache made under other flags: the bundle then compiles as it loads, and the
// cache it read is wasted. The build writes dist/containerd.bundle.js.cache under the same
// flags (scripts/bundle.js); this reads the built bundle (`npm run build`) in a Node process
// started with them, as the shim starts it.
const ROOT = join(__dirname, '../../..');
const { servingNodeFlags } = require(join(ROOT, 'scripts/serving-node-flags')) as { servingNodeFlags(): string[] };

function cacheRejected(flags: readonly string[]): boolean {
  const script = `
    const fs = require('node:fs');
    const { Script } = require('node:vm');
    const file = ${JSON.stringify(join(ROOT, 'dist/containerd.bundle.js'))};
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
});

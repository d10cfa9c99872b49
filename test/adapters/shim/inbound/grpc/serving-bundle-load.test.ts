import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// What the serving bundles load at start, read in a Node process of its own from the built
// bundles (`npm run build`): node:http2 (with http, tls and assert, ~15 ms) only once a
// gRPC server is made, node:zlib only for a compressed request. A ttrpc shim, as containerd
// starts it, never loads either (docs/performance.md).
const LOADER = join(__dirname, '../../../../../bin/loader.js');

function builtinsLoadedBy(bundle: string): string[] {
  const script = `
    require(${JSON.stringify(LOADER)}).loadBundle(${JSON.stringify(bundle)});
    process.stdout.write(JSON.stringify(process.moduleLoadList));`;
  const loaded = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as string[];
  return loaded.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
}

describe.each(['shim', 'containerd'])('dist/%s.bundle.js at start', (bundle) => {
  it('loads neither node:http2 nor node:zlib until a gRPC server or a compressed request needs them', () => {
    const loaded = builtinsLoadedBy(bundle);
    expect(loaded).toContain('net');
    expect(loaded.filter((m) => ['http2', 'zlib', 'tls', 'http'].includes(m))).toEqual([]);
  });
});

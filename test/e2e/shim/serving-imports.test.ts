import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const DIST = resolve(__dirname, '../../../dist/infrastructure/entry');

/** The packages a built entry point loads when required in a fresh Node.js. */
function packagesLoadedBy(entry: string): string[] {
  const script = `require(${JSON.stringify(entry)});
    const names = Object.keys(require.cache).map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(f)?.[1]);
    console.log(JSON.stringify([...new Set(names.filter(Boolean))]));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as string[];
}

// The serving code of `skiff shim serve` and of containerd-shim-skiff-v2 is loaded on every
// shim's start: it reads the generated messages but has its own gRPC and ttrpc servers, so
// grpc-js (and protobufjs behind it) must stay out (scripts/gen-proto.js, docs/performance.md).
describe('the shim serving code', () => {
  it.each(['shim.js', 'containerd.js'])('%s loads the messages without grpc-js', (entry) => {
    const loaded = packagesLoadedBy(resolve(DIST, entry));
    expect(loaded).toContain('google-protobuf');
    expect(loaded).not.toContain('@grpc/grpc-js');
    expect(loaded).not.toContain('protobufjs');
  });
});

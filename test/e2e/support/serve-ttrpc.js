'use strict';
// The shim serving task.v2.Task over ttrpc (what containerd 1.6 speaks) instead of
// gRPC, for the end-to-end suite: `skiff shim serve` has no transport choice yet.
// Same flags as `skiff shim serve`; runs the built dist/ like bin/run.js does.
// usage: node serve-ttrpc.js --address <sock> [--runtime native|runc] [--state-dir <dir>]
const path = require('node:path');
const dist = path.join(__dirname, '../../../dist/infrastructure/shim');
const { parseServeArgs } = require(path.join(dist, 'listen-first.js'));
const { serveShim } = require(path.join(dist, 'serve-shim.js'));

const config = parseServeArgs(process.argv.slice(2));
if (config === undefined) {
  process.stderr.write('serve-ttrpc: usage: --address <sock> [--runtime native|runc] [--state-dir <dir>]\n');
  process.exit(2);
}
serveShim(config, 'ttrpc').catch((err) => {
  process.stderr.write(`serve-ttrpc: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

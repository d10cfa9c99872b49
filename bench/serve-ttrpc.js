'use strict';
// `skiff shim serve` started the way bin/run.js starts it (socket first, then the
// serving bundle with its code cache), serving ttrpc instead of gRPC: what containerd
// 1.6 will start once the shim binary exists. Same flags as `skiff shim serve`.
const { loadBundle } = require('../bin/bundle-loader');

const first = loadBundle('shim-listen');
const config = first.parseServeArgs(process.argv.slice(2));
if (config === undefined) {
  process.stderr.write('serve-ttrpc: usage: --address <sock> [--runtime native|runc] [--state-dir <dir>]\n');
  process.exit(2);
}
first.listenFirst(config).then((socket) => loadBundle('shim').runServe(config, socket, 'ttrpc'), first.failServe);

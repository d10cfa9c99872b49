'use strict';
// `skiff shim serve` started the way bin/run.js starts it (socket first, then the
// serving bundle with its code cache), serving ttrpc instead of gRPC: what containerd
// 1.6 speaks. Same flags as `skiff shim serve`; the end-to-end suite starts its ttrpc
// shims with it too.
const { loadBundle } = require('../bin/loader');

const first = loadBundle('shim-listen');
const config = first.parseServeArgs(process.argv.slice(2));
if (config === undefined) {
  process.stderr.write('serve-ttrpc: usage: --address <sock> [--runtime native|runc] [--state-dir <dir>]\n');
  process.exit(2);
}
first.listenFirst(config).then((socket) => {
  try {
    loadBundle('shim').runServe(config, socket, 'ttrpc');
  } catch (err) {
    first.failServe(err, socket);
  }
}, first.failServe);

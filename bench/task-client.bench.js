'use strict';
// `skiff task` over gRPC from a fresh process (issue 32): a fresh shim's lifecycles
// (Create+Start+Wait+Delete of /bin/true) timed by a client as fresh as the shim, in a Node
// process of its own (bench/fresh-shim.js), against Node's spawn-and-wait of the same program
// timed in the same process in alternating blocks. Two clients, alternating run by run:
// skiff's own on node:http2 (what `skiff task` uses; printed: its 1.5x target is retired) and grpc-js's,
// skiff's client before, printed beside it. bench/shim.bench.js has the same figure among
// the shim's others; this file measures it alone (`npm run bench -- task-client`).
const { execFile, fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { median } = require('./stats');
const { MINIMAL_ENV, writeBundle } = require('./shim-client');
const { UNTIMED, TIMED } = require('./fresh-shim');

const RUNS = 4;

function freshShimProcess(args) {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [path.join(__dirname, 'fresh-shim.js'), ...args], (err, stdout, stderr) =>
      err ? reject(new Error(`fresh-shim.js failed: ${stderr || err.message}`)) : resolve(JSON.parse(stdout)),
    ),
  );
}

const freshClient = (dir, bundle, client) => freshShimProcess(['grpc', dir, bundle, client]);

/** The client's own share: the same lifecycles against a server that does no work (bench/null-grpc-server.js). */
async function clientFloors(dir) {
  const socket = path.join(dir, 'null-grpc.sock');
  const server = fork(path.join(__dirname, 'null-grpc-server.js'), [socket], { env: MINIMAL_ENV });
  try {
    await new Promise((resolve, reject) => {
      server.once('message', resolve);
      server.once('exit', (code) => reject(new Error(`null-grpc-server exited ${code}`)));
    });
    const floors = { skiff: [], 'grpc-js': [] };
    for (let r = 0; r < RUNS; r++) {
      for (const client of Object.keys(floors)) floors[client].push(await freshShimProcess(['floor', socket, client]));
    }
    return floors;
  } finally {
    server.kill();
  }
}

exports.run = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-bench-task-'));
  try {
    const load = () =>
      os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
    console.log(`(load average ${load()} on ${os.cpus().length} cores)`);
    const bundle = writeBundle(dir, 'true', ['/bin/true']);
    const runs = { skiff: [], 'grpc-js': [] };
    for (let r = 0; r < RUNS; r++) {
      for (const client of Object.keys(runs)) {
        runs[client].push(await freshClient(path.join(dir, `${client}-${r}`), bundle, client));
      }
    }
    const figure = (client) => {
      const viaShim = median(runs[client].flatMap((run) => run.viaShim));
      const bare = median(runs[client].flatMap((run) => run.bare));
      const first = median(runs[client].map((run) => run.firstLifecycle));
      return { ratio: viaShim / bare, text: `${viaShim.toFixed(2)} vs ${bare.toFixed(2)} ms`, first };
    };
    const [skiff, grpcJs] = [figure('skiff'), figure('grpc-js')];
    const floors = await clientFloors(dir);
    const floor = (client) => {
      const viaClient = median(floors[client].flatMap((run) => run.viaShim));
      const bare = median(floors[client].flatMap((run) => run.bare));
      return `${(viaClient / bare).toFixed(2)}x (${viaClient.toFixed(2)} vs ${bare.toFixed(2)} ms)`;
    };
    console.log(
      `client floor (the same lifecycles against a server that does no work, fresh client process vs ` +
        `spawn-and-wait): skiff's ${floor('skiff')}, grpc-js's ${floor('grpc-js')}`,
    );
    // A retired target (1.5x): a person runs one lifecycle at a time, and containerd's path is
    // what users meet (docs/performance.md, "The node daemon"). Printed, not judged.
    console.log(
      `lifecycle over gRPC from a fresh client process (skiff task), fresh shim vs spawn-and-wait (printed; its 1.5x target is retired): ${skiff.ratio.toFixed(2)}x (` +
        `${skiff.text} median, first ${TIMED} after ${UNTIMED} untimed, ${RUNS} fresh shims; first lifecycle ` +
        `${skiff.first.toFixed(1)} ms; grpc-js's client in the same run: ${grpcJs.ratio.toFixed(2)}x, ${grpcJs.text}, ` +
        `first lifecycle ${grpcJs.first.toFixed(1)} ms; load average after: ${load()})`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
};

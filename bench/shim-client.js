'use strict';
// The benchmarks' side of the shim: start one (gRPC or ttrpc), wait for its socket,
// and call task.v2.Task on it, as containerd would.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { task } = require('../dist/adapters/shim/wire/proto/generated/task/v2/shim');
const { TtrpcClient } = require('../dist/adapters/shim/wire/ttrpc/ttrpc-client');
const { TTRPC_TASK_SERVICE } = require('../dist/adapters/shim/wire/ttrpc/service-names');

const pb = task.v2;
const BIN = path.join(__dirname, '..', 'bin', 'run.js');
/** How each transport's shim is started: the real command for gRPC, its twin for ttrpc. */
const SERVE = { grpc: [BIN, 'shim', 'serve'], ttrpc: [path.join(__dirname, '../scripts/serve-ttrpc.js')] };
/**
 * This machine sets NODE_EXTRA_CA_CERTS, which adds tens of ms to every Node start; the
 * shims and the `node -e 0` baseline run without it alike.
 */
const MINIMAL_ENV = { PATH: process.env.PATH, HOME: process.env.HOME };

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

function accepts(socket) {
  return new Promise((resolve) => {
    const s = net.connect(socket);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * Resolves once `socket` accepts a connection. It waits for the file to appear with
 * fs.watch instead of polling, so the measuring process does not take CPU from the
 * shim it is timing (two cores).
 */
async function acceptingSoon(socket) {
  await new Promise((resolve) => {
    const watcher = fs.watch(path.dirname(socket), () => {
      if (fs.existsSync(socket)) {
        watcher.close();
        resolve();
      }
    });
    if (fs.existsSync(socket)) {
      watcher.close();
      resolve();
    }
  });
  while (!(await accepts(socket))) await new Promise((r) => setTimeout(r, 1));
}

/**
 * A client of the shim at `socket`: call(method, request message) resolves with the reply
 * message. Over gRPC, `client` chooses whose: grpc-js's (the default, a client warmed up
 * as a daemon's would be) or 'skiff', the node:http2 client `skiff task` uses
 * (dist/adapters/shim/outbound/task-client/http2-grpc-transport.js). Each is loaded only
 * when chosen, so a fresh process pays for its own client alone.
 */
function connectClient(transport, socket, client = 'grpc-js') {
  const definition = pb.UnimplementedTaskService.definition;
  if (transport === 'grpc' && client === 'skiff') {
    const { http2GrpcTransport } = require('../dist/adapters/shim/outbound/task-client/http2-grpc-transport');
    const wire = http2GrpcTransport(socket);
    const call = async (method, request) =>
      definition[method].responseDeserialize(await wire.call(method, definition[method].requestSerialize(request)));
    return { call, close: () => wire.close() };
  }
  if (transport === 'grpc') {
    const grpc = require('@grpc/grpc-js');
    const TaskClient = grpc.makeGenericClientConstructor(definition, 'Task');
    const grpcClient = new TaskClient(`unix:${socket}`, grpc.credentials.createInsecure());
    const call = (method, request) =>
      new Promise((resolve, reject) => grpcClient[method](request, (e, r) => (e ? reject(e) : resolve(r))));
    return { call, close: () => grpcClient.close() };
  }
  const ttrpc = new TtrpcClient(socket);
  const call = async (method, request) =>
    definition[method].responseDeserialize(
      await ttrpc.call(TTRPC_TASK_SERVICE, method, definition[method].requestSerialize(request)),
    );
  return { call, close: () => ttrpc.close() };
}

/**
 * Starts a shim in `dir` (socket dir/shim.sock; `runtime` as its --runtime, else the default)
 * and resolves once its socket accepts; rejects if it exits first (its stderr is the bench's).
 */
async function startShim(transport, dir, { runtime } = {}) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const socket = path.join(dir, 'shim.sock');
  const started = nowMs();
  const args = [...SERVE[transport], '--address', socket, '--state-dir', path.join(dir, 'state')];
  if (runtime !== undefined) args.push('--runtime', runtime);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'], env: MINIMAL_ENV });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ status: code ?? signal })));
  const early = await Promise.race([acceptingSoon(socket), exited]);
  if (early !== undefined) throw new Error(`the shim in ${dir} exited (${early.status}) before its socket accepted`);
  return { child, socket, started, readyMs: nowMs() - started };
}

async function stopShim(shim, client) {
  client?.close();
  shim.child.kill('SIGTERM');
  await new Promise((r) => (shim.child.exitCode !== null ? r() : shim.child.once('exit', r)));
}

function writeBundle(dir, name, args) {
  const b = path.join(dir, name);
  fs.mkdirSync(b, { recursive: true });
  fs.writeFileSync(
    path.join(b, 'config.json'),
    JSON.stringify({ ociVersion: '1.0.2', process: { args, env: ['PATH=/usr/bin:/bin'], cwd: '/' } }),
  );
  return b;
}

/** One lifecycle as containerd drives it: Create; Wait sent before Start; Start; the exit; Delete. */
async function lifecycle(client, id, bundle) {
  await client.call('Create', new pb.CreateTaskRequest({ id, bundle }));
  const exited = client.call('Wait', new pb.WaitRequest({ id }));
  await client.call('Start', new pb.StartRequest({ id }));
  await exited;
  await client.call('Delete', new pb.DeleteRequest({ id }));
}

function spawnAndWait(file, args = [], options = {}) {
  return new Promise((resolve, reject) => {
    const c = spawn(file, args, { stdio: 'ignore', ...options });
    c.once('error', reject);
    c.once('exit', resolve);
  });
}

/** A process's resident memory (VmRSS) in MB. */
function rssMb(pid) {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match[1]) / 1024;
}

/** The spawn-and-wait baseline, run by bench/spawn-baseline.js: times(count) resolves with `count` timings. */
function spawnBaseline() {
  const child = spawn(process.execPath, [path.join(__dirname, 'spawn-baseline.js')], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: MINIMAL_ENV,
  });
  return {
    times: (count) =>
      new Promise((resolve) => {
        child.once('message', resolve);
        child.send({ count });
      }),
    stop: () => child.kill(),
  };
}

module.exports = {
  spawnBaseline,
  pb,
  nowMs,
  MINIMAL_ENV,
  connectClient,
  startShim,
  stopShim,
  writeBundle,
  lifecycle,
  spawnAndWait,
  rssMb,
};

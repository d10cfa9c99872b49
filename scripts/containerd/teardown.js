'use strict';
// Removes everything a private containerd made, also after a failed or timed-out test or
// a killed owner: its tasks and containers, the daemon, shims left behind, the runc
// state, cgroups and /run/containerd/s sockets of its containers, the mounts under its
// directory, and the directory. Returns what could not be removed (an empty list when
// all is gone). The machine's own containerd is never touched: only processes with an
// argument under the instance's directory are killed, and only containers this instance
// knows (by namespace and id) are looked for outside it.
const { execFileSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { ctr } = require('./ctr');
const { removeBridge } = require('./cni');
const { layout, RUNC_SHIM_RUN } = require('./layout');
const { alive, argAfter, mountsUnder, otherContainerdRunning, processesUnder } = require('./procfs');

const CGROUP_ROOT = '/sys/fs/cgroup';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `done` every 20 ms until it is true or `ms` have passed; returns its last answer. */
async function waitUntil(done, ms) {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

function lines(text) {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** Asks the running daemon to remove every task (killing it) and container, namespace by namespace. */
async function drain(p, known, namespaces, ctrBinary) {
  const run = (ns, args) => ctr(p.address, ns, args, { timeoutMs: 10_000, ctrBinary });
  const listed = await run('default', ['namespaces', 'ls', '-q']);
  if (listed.status !== 0) return;
  for (const ns of lines(listed.stdout)) {
    namespaces.add(ns);
    const tasks = lines((await run(ns, ['tasks', 'ls', '-q'])).stdout);
    if (tasks.length > 0) await run(ns, ['tasks', 'rm', '-f', ...tasks]);
    const containers = lines((await run(ns, ['containers', 'ls', '-q'])).stdout);
    for (const id of containers) known.add(`${ns}/${id}`);
    if (containers.length > 0) await run(ns, ['containers', 'rm', ...containers]);
  }
}

function namespacesUsed(p) {
  try {
    return JSON.parse(fs.readFileSync(p.namespaces, 'utf8'));
  } catch {
    return [];
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the daemon is gone. */
async function stopDaemon(pid, start, graceMs = 5_000) {
  if (pid === undefined || !alive(pid, start)) return;
  process.kill(pid, 'SIGTERM');
  if (await waitUntil(() => !alive(pid, start), graceMs)) return;
  process.kill(pid, 'SIGKILL');
  await waitUntil(() => !alive(pid, start), 5_000);
}

/** "<ns>/<id>" of every task bundle still on disk. */
function bundlesOnDisk(p) {
  const found = [];
  for (const ns of safeReaddir(p.bundles))
    for (const id of safeReaddir(path.join(p.bundles, ns))) found.push(`${ns}/${id}`);
  return found;
}

function safeReaddir(dir) {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** The cgroup hierarchies: the v2 tree, or each mounted v1 controller. */
function cgroupRoots() {
  if (fs.existsSync(path.join(CGROUP_ROOT, 'cgroup.controllers'))) return [CGROUP_ROOT];
  return safeReaddir(CGROUP_ROOT)
    .map((name) => path.join(CGROUP_ROOT, name))
    .filter((dir) => fs.existsSync(path.join(dir, 'cgroup.procs')));
}

/** Where ctr and CRI (without a cgroup parent) put a container: /<ns>/<id> in each hierarchy. */
function cgroupsOf(key) {
  return cgroupRoots()
    .map((root) => path.join(root, key))
    .filter((dir) => fs.existsSync(dir));
}

function killCgroup(dir) {
  for (const pid of lines(fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8')).map(Number)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** containerd-shim-runc-v2's socket for a task: /run/containerd/s/sha256("<containerd address>/<ns>/<group id>"). */
function runcShimSocket(address, key) {
  return path.join(RUNC_SHIM_RUN, 's', createHash('sha256').update(path.join(address, key)).digest('hex'));
}

/** Socket paths the shims of this instance wrote into their bundles' `address` files. */
function shimSocketsOnDisk(p) {
  const sockets = [];
  for (const key of bundlesOnDisk(p)) {
    try {
      const address = fs.readFileSync(path.join(p.bundles, key, 'address'), 'utf8').trim();
      if (address.startsWith('unix://')) sockets.push(address.slice('unix://'.length));
    } catch {
      // no address file: the shim never started
    }
  }
  return sockets;
}

function removeSocket(file) {
  try {
    if (fs.lstatSync(file).isSocket()) fs.unlinkSync(file);
  } catch {
    // gone already
  }
}

function rmdirQuietly(dir) {
  try {
    fs.rmdirSync(dir);
  } catch {
    // not empty (someone else's) or gone
  }
}

/**
 * Removes a container that outlived its daemon and shim: runc's state (the runc shim's
 * root, or skiff's under the instance's state dir), its processes, its cgroups.
 */
async function removeOrphan(p, key) {
  const [ns, id] = key.split('/');
  for (const runcRoot of [path.join(RUNC_SHIM_RUN, 'runc', ns), path.join(p.state, 'skiff', ns, 'runc')]) {
    if (!fs.existsSync(path.join(runcRoot, id))) continue;
    try {
      execFileSync('runc', ['--root', runcRoot, 'delete', '--force', id], { stdio: 'ignore', timeout: 10_000 });
    } catch {
      // its cgroup is emptied below
    }
  }
  for (const dir of cgroupsOf(key)) killCgroup(dir);
  await waitUntil(() => {
    for (const dir of cgroupsOf(key)) rmdirQuietly(dir);
    return cgroupsOf(key).length === 0;
  }, 3_000);
}

/**
 * Tears down the instance in `dir`. `daemon` = { pid, start, ctr } of its containerd, when known
 * (ctr: the ctr binary of its version, default ctr on PATH).
 * Resolves the list of leftovers, one line each.
 */
async function teardown(dir, daemon = {}) {
  const p = layout(dir);
  const known = new Set();
  const namespaces = new Set(namespacesUsed(p));
  if (daemon.pid !== undefined && alive(daemon.pid, daemon.start)) await drain(p, known, namespaces, daemon.ctr);
  await stopDaemon(daemon.pid, daemon.start);

  for (const key of bundlesOnDisk(p)) known.add(key);
  const strays = processesUnder(dir);
  for (const { argv } of strays) {
    const ns = argAfter(argv, '-namespace');
    const id = argAfter(argv, '-id');
    if (ns !== undefined && id !== undefined) known.add(`${ns}/${id}`);
  }
  for (const { pid } of strays) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await waitUntil(() => processesUnder(dir).length === 0, 5_000);
  for (const key of known) await removeOrphan(p, key);
  removeBridge(dir);

  for (const socket of [...shimSocketsOnDisk(p), ...[...known].map((key) => runcShimSocket(p.address, key))])
    removeSocket(socket);
  for (const mount of mountsUnder(dir)) {
    try {
      execFileSync('umount', ['--lazy', mount], { stdio: 'ignore' });
    } catch {
      // reported below
    }
  }
  // Never recurse through a mount that is still there (it could be a host directory).
  if (mountsUnder(dir).length === 0) fs.rmSync(dir, { recursive: true, force: true });

  for (const key of known) namespaces.add(key.split('/')[0]);
  for (const ns of namespaces) {
    rmdirQuietly(path.join(RUNC_SHIM_RUN, 'runc', ns));
    for (const root of cgroupRoots()) rmdirQuietly(path.join(root, ns));
  }
  // The runc shim's skeleton under /run/containerd: only when no containerd at all is left
  // to use it (so never the machine's, nor a concurrent instance's in its first moments).
  if (!otherContainerdRunning()) {
    for (const sub of ['s', 'fifo', 'runc', '']) rmdirQuietly(path.join(RUNC_SHIM_RUN, sub));
  }
  return leftovers(p, known);
}

function leftovers(p, known) {
  const left = [];
  for (const { pid, argv } of processesUnder(p.dir)) left.push(`process ${pid} (${argv.join(' ').slice(0, 120)})`);
  for (const mount of mountsUnder(p.dir)) left.push(`mount ${mount}`);
  if (fs.existsSync(p.dir)) left.push(`directory ${p.dir}`);
  for (const key of known) {
    const [ns, id] = key.split('/');
    if (fs.existsSync(path.join(RUNC_SHIM_RUN, 'runc', ns, id)))
      left.push(`runc state ${path.join(RUNC_SHIM_RUN, 'runc', ns, id)}`);
    for (const dir of cgroupsOf(key)) left.push(`cgroup ${dir}`);
    const socket = runcShimSocket(p.address, key);
    if (fs.existsSync(socket)) left.push(`shim socket ${socket}`);
  }
  return left;
}

module.exports = { teardown, stopDaemon, waitUntil, runcShimSocket };

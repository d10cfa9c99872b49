'use strict';
// What the guest suites share (docs/vm.md). They run inside a VM bed guest (`npm run test:vm`),
// as root, against the node's own containerd as its systemd unit runs it, with skiff installed
// from the packed tarball and configured as `skiff containerd config` printed. Each check runs
// through containerd's runc shim and through skiff, side by side.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { ctr: ctrAt } = require('../../scripts/containerd/ctr');
const { taskAddress } = require('../../scripts/containerd/runtime-processes');

const ADDRESS = '/run/containerd/containerd.sock';
const RUNTIMES = { runc: 'io.containerd.runc.v2', skiff: 'io.containerd.skiff.v2' };
const IMAGE = 'docker.io/library/skiff-busybox:latest';
/** Calls under emulation take seconds where the host takes milliseconds. */
const SLOW_MS = 120_000;
/**
 * How many times an OOM case runs before it fails, by runtime or handler. containerd's runc shim,
 * the reference, at times misses the OOM of a container killed at once (docs/vm.md, "The runc
 * handler's OOM race"): three tries, each miss printed. skiff watches from Create: one.
 */
const OOM_TRIES = { runc: 3, skiff: 1 };

const BUNDLES = '/run/containerd/io.containerd.runtime.v2.task';

/** The shim address containerd keeps for a task of the node's containerd. */
function shimAddress(namespace, id) {
  return taskAddress(BUNDLES, namespace, id);
}

// The suites change the machine's containerd (restarts, SIGKILLs, cgroups): only in a bed guest.
if (!fs.existsSync('/run/skiff-vm/guest.sh'))
  throw new Error('test/vm runs inside a VM bed guest, never on this machine: npm run test:vm (docs/vm.md)');

/** ctr on the node's containerd; resolves { stdout, stderr, status, ... } (scripts/containerd/ctr.js). */
function ctr(namespace, args, options = {}) {
  return ctrAt(ADDRESS, namespace, args, { timeoutMs: SLOW_MS, ...options });
}

/** ctr that must succeed: its stdout, or a thrown error naming the command and what it said. */
async function ctrOk(namespace, args, options = {}) {
  const result = await ctr(namespace, args, options);
  if (result.status !== 0)
    throw new Error(
      `ctr ${args.join(' ')}: exit ${result.status}${result.timedOut ? ' (timed out)' : ''}: ${result.stderr.trim()}`,
    );
  return result.stdout;
}

/** A fresh namespace per suite and runtime, so one's leftovers never meet another's checks. */
function namespaceFor(suite, runtime) {
  return `vm-${suite}-${runtime}-${process.pid}`;
}

async function importImage(namespace) {
  await ctrOk(namespace, ['image', 'import', '/run/skiff-vm/busybox.tar']);
}

/** Removes every task and container of a namespace, then the namespace. */
async function cleanNamespace(namespace) {
  const ids = (await ctr(namespace, ['containers', 'ls', '-q'])).stdout.split('\n').filter(Boolean);
  for (const id of ids) {
    await ctr(namespace, ['tasks', 'kill', '-s', 'KILL', id]);
    await ctr(namespace, ['tasks', 'delete', '-f', id]);
    await ctr(namespace, ['containers', 'delete', id]);
  }
  for (const image of (await ctr(namespace, ['images', 'ls', '-q'])).stdout.split('\n').filter(Boolean))
    await ctr(namespace, ['images', 'rm', image]);
  await ctr('default', ['namespaces', 'remove', namespace]);
}

/** Polls `check` until it returns a value other than undefined/false, or throws after `ms`. */
async function waitFor(what, check, ms = SLOW_MS) {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The registry stand-in (scripts/registry-stand-in.js) serving the guest's busybox and pause
 * images, unpacked into `dir`, from a process of its own (a suite's spawnSync calls would stall
 * a server in the suite's own event loop). Resolves { port, stop() } once it listens.
 */
async function registryStandIn(dir) {
  const layout = path.join(dir, 'layout');
  fs.mkdirSync(layout, { recursive: true });
  const unpacked = sh(`tar -xf /run/skiff-vm/busybox.tar -C ${layout}`);
  if (unpacked.status !== 0) throw new Error(`unpacking the image archive: ${unpacked.stderr}`);
  const child = spawn(process.execPath, [path.join(__dirname, '../../scripts/registry-stand-in.js'), layout], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
  const port = await waitFor('the registry stand-in to listen', () => {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the registry stand-in ended (${child.exitCode ?? child.signalCode})`);
    const listening = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
    return listening === null ? undefined : Number(listening[1]);
  });
  return {
    port,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function sh(command) {
  return spawnSync('sh', ['-c', command], { encoding: 'utf8' });
}

module.exports = {
  OOM_TRIES,
  ADDRESS,
  IMAGE,
  RUNTIMES,
  SLOW_MS,
  cleanNamespace,
  ctr,
  ctrOk,
  importImage,
  namespaceFor,
  registryStandIn,
  sh,
  shimAddress,
  waitFor,
};

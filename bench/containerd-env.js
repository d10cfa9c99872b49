'use strict';
// The private containerd for the benchmarks (the same one the tests use, from
// scripts/containerd/): start/stop, image import, and a timed ctr call. The skiff shim's
// benchmarks through containerd build on this; see docs/containerd-testing.md.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { PrivateContainerd, BUSYBOX_IMAGE, PAUSE_IMAGE } = require('../scripts/containerd/private-containerd');
const { describe } = require('../scripts/containerd/ctr');
const { missingTools, CONTAINERD_TOOLS } = require('../scripts/missing-tools');

/** Why the containerd benchmarks cannot run here, or undefined. */
function missing() {
  const problems = missingTools(CONTAINERD_TOOLS);
  return problems.length === 0
    ? undefined
    : `${problems.join(', ')} (apt-get install containerd runc busybox-static, run as root)`;
}

/** Starts a private containerd (options as PrivateContainerd.start: cri, logLevel, shimDirs, env). */
function startContainerd(options = {}) {
  // A node keeps containerd's state in /run (tmpfs): both runtimes' task files cost there what
  // they cost on a node (containerd-shim-runc-v2 keeps its own in /run/containerd anyway).
  return PrivateContainerd.start({ stateOnTmpfs: true, ...options });
}

/** Imports the busybox and pause images into `namespace`; resolves the milliseconds it took. */
async function importImages(env, namespace) {
  const started = process.hrtime.bigint();
  await env.importImages(namespace);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Runs ctr and resolves its wall time in ms; throws one line unless it exits `expected`. */
async function timedCtr(env, namespace, args, expected = 0) {
  const result = await env.ctr(namespace, args, { timeoutMs: 30_000 });
  if (result.status !== expected) throw new Error(describe(args, result));
  return result.ms;
}

/**
 * The node daemon for `namespace` (docs/node-daemon.md), started as its systemd unit starts it
 * at boot: `containerd-shim-skiff-v2 ... serve`. Resolves once its serving process serves (its
 * pid file names it: when the supervisor tells systemd READY=1, so when `systemctl start`
 * returns and kubelet, ordered after the unit, starts); the instance's teardown ends it.
 */
async function startNodeDaemon(env, namespace) {
  const { groupServerPids } = require('../scripts/containerd/runtime-processes');
  const shim = path.join(__dirname, '../bin/containerd-shim-skiff-v2');
  const args = ['-namespace', namespace, '-address', env.address, '-state', env.paths.state, 'serve'];
  const child = spawn(shim, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const deadline = Date.now() + 30_000;
  const { pidFileOf, readPidFile } = require('../dist/adapters/shim/os/pid-file');
  const serves = () =>
    groupServerPids(namespace, env.address).some((pid) => {
      try {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return readPidFile(pidFileOf(argv[argv.indexOf('--socket') + 1] ?? '')) === pid;
      } catch {
        return false; // gone meanwhile
      }
    });
  while (!serves()) {
    if (child.exitCode !== null) throw new Error(`${shim} serve exited ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${shim} serve: no serving process within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return child;
}

/**
 * A node's first call through each of `names`, each on a fresh node of its own: `measure(name)`
 * starts its own containerd and resolves the ms. `rounds` rounds, the order reversed every other
 * one, so neither meets the other's warmed caches (the host's page cache, containerd's binary)
 * more often. Resolves { name: [ms, ...] }.
 */
async function firstsOnFreshNodes(names, rounds, measure) {
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) times[name].push(await measure(name));
  }
  return times;
}

/** Removes everything the instance made; throws when something was left behind. */
function stopContainerd(env) {
  return env.stop();
}

module.exports = {
  missing,
  startContainerd,
  startNodeDaemon,
  firstsOnFreshNodes,
  importImages,
  timedCtr,
  stopContainerd,
  BUSYBOX_IMAGE,
  PAUSE_IMAGE,
};

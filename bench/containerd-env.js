'use strict';
// The private containerd for the benchmarks (the same one the tests use, from
// scripts/containerd/): start/stop, image import, and a timed ctr call. The skiff shim's
// benchmarks through containerd build on this; see docs/containerd-testing.md.
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

/** Removes everything the instance made; throws when something was left behind. */
function stopContainerd(env) {
  return env.stop();
}

module.exports = { missing, startContainerd, importImages, timedCtr, stopContainerd, BUSYBOX_IMAGE, PAUSE_IMAGE };

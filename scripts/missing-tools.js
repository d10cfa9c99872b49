'use strict';
// What the runc and containerd suites and benchmarks need on this machine: root, the named
// tools (each answering `--version`) and busybox-static's /bin/busybox for the images and
// bundles. One list of problems, so each caller can say in one line why it is left out.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');

const BUSYBOX = '/bin/busybox';
/** What the containerd suites and benchmarks run besides busybox. */
const CONTAINERD_TOOLS = ['containerd', 'ctr', 'runc'];

/** The problems that keep `tools` (e.g. ['runc']) from running here; empty when none. */
function missingTools(tools) {
  const problems = [];
  if (process.getuid?.() !== 0) problems.push('not running as root');
  for (const tool of tools)
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0) problems.push(`${tool} is not installed`);
  if (!fs.existsSync(BUSYBOX)) problems.push(`${BUSYBOX} is missing`);
  return problems;
}

/**
 * Whether the containerd suites are left out of this run: SKIFF_CONTAINERD_TESTS=0, or a
 * piece missing without SKIFF_CONTAINERD_TESTS=1 (which makes that an error instead).
 */
function containerdSuitesLeftOut(env = process.env) {
  const flag = env.SKIFF_CONTAINERD_TESTS;
  return flag === '0' || (flag !== '1' && missingTools(CONTAINERD_TOOLS).length > 0);
}

module.exports = { missingTools, containerdSuitesLeftOut, CONTAINERD_TOOLS };

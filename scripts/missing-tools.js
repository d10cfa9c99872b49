'use strict';
// What the runc and containerd suites and benchmarks need on this machine: root, the named
// tools (each answering `--version`) and busybox-static's /bin/busybox for the images and
// bundles. One list of problems, so each caller can say in one line why it is left out.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');

const BUSYBOX = '/bin/busybox';

/** The problems that keep `tools` (e.g. ['runc']) from running here; empty when none. */
function missingTools(tools) {
  const problems = [];
  if (process.getuid?.() !== 0) problems.push('not running as root');
  for (const tool of tools)
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0) problems.push(`${tool} is not installed`);
  if (!fs.existsSync(BUSYBOX)) problems.push(`${BUSYBOX} is missing`);
  return problems;
}

module.exports = { missingTools };

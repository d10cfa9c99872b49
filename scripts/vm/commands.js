'use strict';
// The host programs the VM bed needs, and running them with a one-line error.
const { spawn, spawnSync } = require('node:child_process');

/** Each program the bed runs, with the Debian package that brings it. */
const TOOLS = {
  'qemu-system-x86_64': 'qemu-system-x86',
  mmdebstrap: 'mmdebstrap',
  mke2fs: 'e2fsprogs',
};

/** The programs missing here, as one line naming the apt-get command that brings them; undefined when none. */
function missingTools(tools = Object.keys(TOOLS)) {
  const missing = tools.filter(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0,
  );
  if (missing.length === 0) return undefined;
  const packages = [...new Set(missing.map((tool) => TOOLS[tool]))].join(' ');
  return `${missing.join(', ')} not found: apt-get install -y --no-install-recommends ${packages}`;
}

/** Runs a program to its end; rejects with its last lines of output when it fails. */
function run(program, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk).slice(-8192);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) => reject(new Error(`${program}: ${err.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) resolve(output);
      else {
        const tail = output.trim().split('\n').slice(-6).join('\n');
        reject(new Error(`${program} failed (${signal ?? `exit ${code}`}):\n${tail}`));
      }
    });
  });
}

module.exports = { TOOLS, missingTools, run };

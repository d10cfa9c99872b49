'use strict';
// The parent of a serving process under test, as an init system or a supervisor would be:
// a child subreaper, so the containers a killed serving process leaves are re-parented here,
// and it reaps them only when told to (`reap`), which lets a test choose between an exit
// that is still readable (a zombie) and one whose status is gone (reaped by its new parent).
// Driven over IPC: {op:'spawn', argv, stderr} -> {pid}; {op:'reap', pids?} -> {reaped}; {op:'exit'}.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const addon = require(path.join(__dirname, '../../../build/Release/skiff_native.node'));
addon.setChildSubreaper();
/** The serving processes: node's own children, reaped by node, never by `reap`. */
const own = new Set();

function reapOrphans(only) {
  const reaped = [];
  for (const line of fs.readdirSync('/proc')) {
    const pid = Number(line);
    if (!Number.isInteger(pid) || own.has(pid) || (only !== undefined && !only.includes(pid))) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' && Number(fields[1]) === process.pid) {
      addon.reap(pid);
      reaped.push(pid);
    }
  }
  return reaped;
}

process.on('message', (message) => {
  if (message.op === 'spawn') {
    const err = fs.openSync(message.stderr, 'a');
    const child = spawn(process.execPath, message.argv, { stdio: ['ignore', 'ignore', err] });
    fs.closeSync(err);
    own.add(child.pid);
    process.send({ pid: child.pid });
  } else if (message.op === 'reap') {
    process.send({ reaped: reapOrphans(message.pids) });
  } else if (message.op === 'exit') {
    reapOrphans();
    process.exit(0);
  }
});

'use strict';
// The pod keeper's part in `containerd-shim-skiff-v2 sandbox` (native/keeper/held-launch.c), for
// test/native/sandbox-verb.test.ts: a child subreaper that runs the verb with its stderr in a log
// file, waits for its exit, reads the pid file and watches the pid named there, which that exit
// re-parented to it, and reaps it. Driven over IPC, each reply carrying the request's seq:
//   {op:'launch', argv, pidFile, log} -> {status, signal, stderr, pid, parent}
//   {op:'exits'}                      -> {exits: {pid: {code, signal}}} of the pids watched
//   {op:'end'}                        -> SIGKILL to those still running, {} once all are reaped, exit
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const addon = require(path.join(__dirname, '../../../build/Release/skiff_native.node'));
addon.setChildSubreaper();
/** The held pids, each its exit once reaped (null while it runs). */
const held = new Map();

function parentOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

function launch({ argv, pidFile, log }) {
  const err = fs.openSync(log, 'w', 0o600);
  const run = spawnSync(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', err], timeout: 10_000 });
  fs.closeSync(err);
  let pid = 0;
  try {
    pid = Number.parseInt(fs.readFileSync(pidFile, 'latin1'), 10) || 0;
  } catch {
    pid = 0;
  }
  const parent = pid > 0 ? parentOf(pid) : 0;
  if (pid > 0 && parent === process.pid && !held.has(pid)) {
    held.set(pid, null);
    addon.watchExit(pid, (exit) => held.set(pid, exit ?? { code: null, signal: null }));
  }
  return { status: run.status, signal: run.signal, stderr: fs.readFileSync(log, 'utf8'), pid, parent };
}

/** A pid that ended since the last look is a zombie until its watch reaps it: kill still finds it. */
function killQuietly(pid) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

function end(reply) {
  for (const [pid, exit] of held) if (exit === null) killQuietly(pid);
  const check = () => ([...held.values()].every((exit) => exit !== null) ? reply() : setTimeout(check, 10));
  check();
}

process.on('message', (message) => {
  const reply = (body) => process.send({ seq: message.seq, ...body });
  if (message.op === 'launch') reply(launch(message));
  else if (message.op === 'exits') reply({ exits: Object.fromEntries(held) });
  else if (message.op === 'end')
    end(() => {
      reply({});
      process.disconnect();
    });
});

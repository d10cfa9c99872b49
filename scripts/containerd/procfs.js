'use strict';
// What the teardown of a private containerd needs to know from /proc: which processes
// belong to it, whether one is still the same process, and what is mounted under a dir.
const fs = require('node:fs');

function read(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] = state, [1] = ppid. */
function statFields(pid) {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The start time (clock ticks since boot) that, with the pid, names one process for good. */
function startTime(pid) {
  return statFields(pid)?.[19];
}

/** Whether `pid` is a live (not zombie) process, and the same one when `start` is given. */
function alive(pid, start) {
  const fields = statFields(pid);
  if (fields === undefined || fields[0] === 'Z') return false;
  return start === undefined || fields[19] === start;
}

/** Every pid in /proc. */
function pids() {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** Inodes of the sockets `pid` holds open (its /proc/<pid>/fd links `socket:[<inode>]`); empty when gone. */
function socketInodes(pid) {
  const inodes = new Set();
  let fds;
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode !== undefined) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** Live processes with an argument under `dir` (the daemon's --config, a shim's -address, a ctr's --address). */
function processesUnder(dir) {
  const prefix = `${dir}/`;
  const found = [];
  for (const pid of pids()) {
    if (pid === process.pid) continue;
    const argv = read(`/proc/${pid}/cmdline`)?.split('\0') ?? [];
    if (argv.some((arg) => arg.startsWith(prefix)) && alive(pid))
      found.push({ pid, argv: argv.filter((a) => a !== '') });
  }
  return found;
}

/** Whether any live process other than `except` is a containerd daemon (the machine's or another instance). */
function otherContainerdRunning(except = []) {
  return pids().some(
    (pid) => !except.includes(pid) && read(`/proc/${pid}/comm`)?.trim() === 'containerd' && alive(pid),
  );
}

/** Mount points at or under `dir` in this mount namespace, deepest first. */
function mountsUnder(dir) {
  const info = read('/proc/self/mountinfo') ?? '';
  const points = info
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((p) => p !== undefined)
    .map((p) => p.replace(/\\([0-7]{3})/g, (_, oct) => String.fromCharCode(parseInt(oct, 8))))
    .filter((p) => p === dir || p.startsWith(`${dir}/`));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/** The value after `flag` in an argv (a shim's -namespace, -id). */
function argAfter(argv, flag) {
  const at = argv.indexOf(flag);
  return at >= 0 ? argv[at + 1] : undefined;
}

module.exports = {
  alive,
  startTime,
  processesUnder,
  otherContainerdRunning,
  mountsUnder,
  argAfter,
  read,
  pids,
  statFields,
  socketInodes,
};

'use strict';
// Which processes a container runtime's shims add on the host, found from /proc: the
// process serving a task's ttrpc address, and every process a runtime runs for a set of
// tasks (the shims and their helpers, not the containers they run). The tests use it
// to check grouping and leaks, the benchmark to sum memory.
const fs = require('node:fs');
const path = require('node:path');
const { pids, read, socketInodes, statFields } = require('./procfs');

/** The socket path in a shim address (`unix:///path`), or undefined for an abstract one. */
function socketPath(address) {
  return address.startsWith('unix://') ? address.slice('unix://'.length) : undefined;
}

/** Inodes of the listening unix sockets bound at `file` (/proc/net/unix: flags 00010000 = listening). */
function listeningInodes(file) {
  const inodes = new Set();
  for (const line of (read('/proc/net/unix') ?? '').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[7] === file && (parseInt(fields[3], 16) & 0x10000) !== 0) inodes.add(fields[6]);
  }
  return inodes;
}

/** The pids of the processes that hold the listening socket of a shim `address`. */
function listenerPids(address) {
  const file = socketPath(address.trim());
  if (file === undefined) return [];
  const inodes = listeningInodes(file);
  if (inodes.size === 0) return [];
  return pids().filter((pid) => [...socketInodes(pid)].some((inode) => inodes.has(inode)));
}

/** The pid of the process that holds the listening socket of a shim `address`, or undefined. */
function servingPid(address) {
  return listenerPids(address)[0];
}

/** A process's argv; its last entry is the empty string after the final NUL. */
const argvOf = (pid) => (read(`/proc/${pid}/cmdline`) ?? '').split('\0');

/** Whether a shim address is a skiff pod keeper's socket, `<state>/skiff/k-<hash>.sock` (docs/on-disk-layout.md). */
function isPodKeeper(address) {
  const file = socketPath(address.trim());
  return file !== undefined && /^k-[0-9a-f]{16}\.sock$/.test(path.basename(file));
}

/**
 * The processes that answer a task's calls: the one listening on its address, or behind a
 * skiff pod keeper, skiff's serving processes it relays to: the ones listening on the group
 * sockets beside the pod socket (`<state>/skiff/<hash>.sock`), which are this containerd's,
 * and with `namespace` only those serving that containerd namespace (serving processes live
 * as long as the node, so other namespaces' are there too: docs/node-daemon.md).
 */
function servingProcesses(address, namespace) {
  if (!isPodKeeper(address)) {
    const listener = servingPid(address);
    return listener === undefined ? [] : [listener];
  }
  const dir = path.dirname(socketPath(address.trim()));
  let files = [];
  try {
    files = fs.readdirSync(dir).filter((f) => /^[0-9a-f]{16}\.sock$/.test(f));
  } catch {
    // No skiff directory: no serving process either.
  }
  // The node daemon's supervisor holds a group socket too (docs/node-daemon.md): the serving
  // process is the one running bin/containerd-daemon.js.
  const servers = files
    .flatMap((f) => listenerPids(`unix://${path.join(dir, f)}`))
    .filter((pid) => {
      const argv = argvOf(pid);
      if (!argv.some((a) => a.endsWith('/bin/containerd-daemon.js'))) return false;
      return namespace === undefined || argv[argv.indexOf('--namespace') + 1] === namespace;
    });
  return [...new Set(servers)];
}

/** Pids of skiff's pod keepers (`containerd-shim-skiff-v2 ... keep`) of the containerd at `address`. */
function podKeeperPids(address) {
  return pids().filter((pid) => {
    const argv = (read(`/proc/${pid}/cmdline`) ?? '').split('\0');
    return argv[argv.length - 2] === 'keep' && argv[argv.indexOf('-address') + 1] === address;
  });
}

/**
 * Pids of skiff's serving processes for `namespace` of the containerd at `address`
 * (`node ... bin/containerd-daemon.js --namespace NS --address ADDRESS ...`, as the pod keeper
 * starts them): none once the last has left after its linger time.
 */
function groupServerPids(namespace, address) {
  return pids().filter((pid) => {
    const argv = (read(`/proc/${pid}/cmdline`) ?? '').split('\0');
    return (
      argv.some((a) => a.endsWith('/bin/containerd-daemon.js')) &&
      argv[argv.indexOf('--namespace') + 1] === namespace &&
      argv[argv.indexOf('--address') + 1] === address
    );
  });
}

/**
 * Pids of the node daemon's standbys for `namespace` of the containerd at `address`
 * (`node ... bin/containerd-standby.js ...`: docs/node-daemon.md, "The standby").
 */
function standbyPids(namespace, address) {
  return pids().filter((pid) => {
    const argv = (read(`/proc/${pid}/cmdline`) ?? '').split('\0');
    return (
      argv.some((a) => a.endsWith('/bin/containerd-standby.js')) &&
      argv[argv.indexOf('--namespace') + 1] === namespace &&
      argv[argv.indexOf('--address') + 1] === address
    );
  });
}

/**
 * The address containerd keeps for a task's shim, or undefined: its bundle's bootstrap.json
 * (containerd 2.x, for a shim that answered its start with bootstrap parameters, as the runc
 * shim does there) or its `address` file (`<bundles>/<ns>/<id>/address`).
 */
function taskAddress(bundles, namespace, id) {
  const bootstrap = read(path.join(bundles, namespace, id, 'bootstrap.json'));
  if (bootstrap !== undefined) return JSON.parse(bootstrap).address;
  return read(path.join(bundles, namespace, id, 'address'))?.trim();
}

/**
 * The ttrpc task service a task's shim serves: `containerd.task.v3.Task` where its bootstrap.json
 * says version 3 (containerd 2.x's runc shim), else `containerd.task.v2.Task` (skiff's, and every
 * shim of containerd 1.x).
 */
function taskService(bundles, namespace, id) {
  const bootstrap = read(path.join(bundles, namespace, id, 'bootstrap.json'));
  const version = bootstrap === undefined ? 2 : JSON.parse(bootstrap).version;
  return version === 3 ? 'containerd.task.v3.Task' : 'containerd.task.v2.Task';
}

/** Whether the process runs inside a container: its cgroup is one CRI or ctr made (/<namespace>/<id>). */
function inContainer(pid, namespaces) {
  const cgroups = read(`/proc/${pid}/cgroup`) ?? '';
  return cgroups.split('\n').some((line) => namespaces.some((ns) => line.split(':')[2]?.startsWith(`/${ns}/`)));
}

/**
 * Every live process a runtime runs for the tasks whose shim `addresses` are given: the
 * processes serving them (skiff's pod keepers and serving processes alike), and their descendants that are not inside a container of
 * `namespaces` (so a shim's helpers count, the containers it runs do not).
 */
function runtimeProcesses(addresses, namespaces = ['k8s.io']) {
  // Tasks of one pod share an address (runc's shim, skiff's keeper): find each server once.
  const roots = new Set(
    [...new Set(addresses)].flatMap((a) => [servingPid(a), ...servingProcesses(a)]).filter((pid) => pid !== undefined),
  );
  // A serving process kept by the node daemon: its supervisor counts too.
  for (const pid of [...roots]) {
    const parent = Number(statFields(pid)?.[1]);
    const argv = argvOf(parent);
    if (argv[0]?.endsWith('containerd-shim-skiff-v2') && argv.at(-2) === 'serve') roots.add(parent);
  }
  const children = new Map();
  for (const pid of pids()) {
    const fields = statFields(pid);
    if (fields === undefined || fields[0] === 'Z') continue;
    const ppid = Number(fields[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const found = new Set();
  const visit = (pid) => {
    if (found.has(pid) || inContainer(pid, namespaces)) return;
    found.add(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  for (const pid of roots) visit(pid);
  return [...found].sort((a, b) => a - b);
}

/** A field of /proc/<pid>/status in bytes (VmRSS, ...), 0 when the process is gone. */
function statusBytes(pid, field) {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(read(`/proc/${pid}/status`) ?? '');
  return match === null ? 0 : Number(match[1]) * 1024;
}

/** Resident memory of a process in bytes (VmRSS). */
function rssBytes(pid) {
  return statusBytes(pid, 'VmRSS');
}

/** Proportional set size in bytes (shared pages divided among their users), 0 when gone. */
function pssBytes(pid) {
  const match = /^Pss:\s+(\d+) kB/m.exec(read(`/proc/${pid}/smaps_rollup`) ?? '');
  return match === null ? 0 : Number(match[1]) * 1024;
}

/** How many file descriptors the process holds. */
function fdCount(pid) {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

module.exports = {
  standbyPids,
  servingPid,
  servingProcesses,
  isPodKeeper,
  podKeeperPids,
  groupServerPids,
  taskAddress,
  taskService,
  runtimeProcesses,
  rssBytes,
  pssBytes,
  fdCount,
};

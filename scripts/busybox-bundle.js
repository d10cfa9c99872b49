#!/usr/bin/env node
'use strict';
// Makes OCI bundles for the runc runtime from Debian's busybox-static: a root filesystem
// holding /bin/busybox and one symlink per applet (what `busybox --install -s` does in a
// chroot), and a config.json like `runc spec` writes. Used by the README, the tests and
// the benchmark.
//
//   node scripts/busybox-bundle.js <bundle-dir> [--pid-ns] [--terminal] [-- args...]
//
// Needs /bin/busybox (apt-get install busybox-static); runs without root.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const BUSYBOX = '/bin/busybox';
const PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Fills `dir` with a busybox root filesystem and returns it. */
function makeBusyboxRootfs(dir) {
  if (!fs.existsSync(BUSYBOX)) throw new Error(`${BUSYBOX} is missing: apt-get install busybox-static`);
  for (const sub of ['bin', 'sbin', 'usr/bin', 'usr/sbin', 'proc', 'dev', 'sys', 'tmp', 'etc', 'root']) {
    fs.mkdirSync(path.join(dir, sub), { recursive: true });
  }
  fs.copyFileSync(BUSYBOX, path.join(dir, 'bin/busybox'));
  fs.chmodSync(path.join(dir, 'bin/busybox'), 0o755);
  const applets = execFileSync(BUSYBOX, ['--list-full'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l !== '');
  for (const applet of applets) {
    const link = path.join(dir, applet);
    if (!fs.existsSync(link)) fs.symlinkSync('/bin/busybox', link);
  }
  fs.writeFileSync(path.join(dir, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  fs.writeFileSync(path.join(dir, 'etc/group'), 'root:x:0:\n');
  return dir;
}

/**
 * A config.json object as `runc spec` writes it, running `args`: uts, ipc, mount and
 * network namespaces (plus pid with `pidNamespace`), a read-only root, a tmpfs /tmp.
 * Options: root (rootfs path, default 'rootfs'), cgroupsPath, env, cwd, terminal,
 * hostname, pidNamespace.
 */
function runcConfig(args, options = {}) {
  const caps = [
    'CAP_AUDIT_WRITE',
    'CAP_KILL',
    'CAP_NET_BIND_SERVICE',
    'CAP_CHOWN',
    'CAP_SETUID',
    'CAP_SETGID',
    'CAP_DAC_OVERRIDE',
    'CAP_FOWNER',
  ];
  const namespaces = ['ipc', 'uts', 'mount', 'network', ...(options.pidNamespace ? ['pid'] : [])].map((type) => ({
    type,
  }));
  return {
    ociVersion: '1.0.2-dev',
    process: {
      terminal: options.terminal ?? false,
      user: { uid: 0, gid: 0 },
      args,
      env: [PATH, 'TERM=xterm', ...(options.env ?? [])],
      cwd: options.cwd ?? '/',
      capabilities: { bounding: caps, effective: caps, permitted: caps, ambient: caps },
      rlimits: [{ type: 'RLIMIT_NOFILE', hard: 1024, soft: 1024 }],
      noNewPrivileges: true,
    },
    root: { path: options.root ?? 'rootfs', readonly: true },
    hostname: options.hostname ?? 'skiff',
    mounts: [
      { destination: '/proc', type: 'proc', source: 'proc' },
      {
        destination: '/dev',
        type: 'tmpfs',
        source: 'tmpfs',
        options: ['nosuid', 'strictatime', 'mode=755', 'size=65536k'],
      },
      {
        destination: '/dev/pts',
        type: 'devpts',
        source: 'devpts',
        options: ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620', 'gid=5'],
      },
      {
        destination: '/dev/shm',
        type: 'tmpfs',
        source: 'shm',
        options: ['nosuid', 'noexec', 'nodev', 'mode=1777', 'size=65536k'],
      },
      { destination: '/dev/mqueue', type: 'mqueue', source: 'mqueue', options: ['nosuid', 'noexec', 'nodev'] },
      { destination: '/sys', type: 'sysfs', source: 'sysfs', options: ['nosuid', 'noexec', 'nodev', 'ro'] },
      { destination: '/tmp', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'nodev', 'mode=1777', 'size=65536k'] },
    ],
    linux: {
      ...(options.cgroupsPath === undefined ? {} : { cgroupsPath: options.cgroupsPath }),
      resources: { devices: [{ allow: false, access: 'rwm' }] },
      namespaces,
      maskedPaths: [
        '/proc/acpi',
        '/proc/kcore',
        '/proc/keys',
        '/proc/latency_stats',
        '/proc/timer_list',
        '/proc/timer_stats',
        '/proc/sched_debug',
        '/sys/firmware',
        '/proc/scsi',
      ],
      readonlyPaths: ['/proc/asound', '/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'],
    },
  };
}

/** A whole bundle in `dir`: rootfs/ and config.json. */
function makeBusyboxBundle(dir, args, options = {}) {
  makeBusyboxRootfs(path.join(dir, 'rootfs'));
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(runcConfig(args, options), null, 2));
  return dir;
}

module.exports = { makeBusyboxRootfs, runcConfig, makeBusyboxBundle };

if (require.main === module) {
  const argv = process.argv.slice(2);
  const dash = argv.indexOf('--');
  const flags = dash < 0 ? argv : argv.slice(0, dash);
  const args = dash < 0 ? ['sh'] : argv.slice(dash + 1);
  const dir = flags.find((f) => !f.startsWith('--'));
  if (dir === undefined) {
    process.stderr.write('usage: node scripts/busybox-bundle.js <bundle-dir> [--pid-ns] [--terminal] [-- args...]\n');
    process.exit(2);
  }
  const terminal = flags.includes('--terminal');
  makeBusyboxBundle(path.resolve(dir), args, { pidNamespace: flags.includes('--pid-ns'), terminal });
  process.stdout.write(`bundle ready: ${path.resolve(dir)} (runs ${JSON.stringify(args)})\n`);
}

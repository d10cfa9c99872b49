'use strict';
// A private containerd for the tests and the benchmarks: its own root, state, sockets and
// config under one temporary directory, the repository's bin/ first on its PATH (so that
// `--runtime io.containerd.skiff.v2` finds bin/containerd-shim-skiff-v2), the busybox and
// pause images imported offline. stop() removes everything it made (see teardown.js); an
// instance whose owner died without stop() is removed by the next start() on the machine.
// See docs/containerd-testing.md.
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { buildImageArchive, BUSYBOX_IMAGE, PAUSE_IMAGE } = require('../busybox-image');
const { setUpPodNetwork } = require('./cni');
const { containerdConfig } = require('./config');
const { ctr, describe } = require('./ctr');
const { layout, MAX_SOCKET_PATH } = require('./layout');
const { ltsContainerd } = require('./lts');
const { alive, startTime } = require('./procfs');
const { teardown, waitUntil } = require('./teardown');

const PREFIX = 'skiff-ctrd-';
const REPO_BIN = path.join(__dirname, '../../bin');
const READY_TIMEOUT_MS = 20_000;

let archive;
/** The image archive, built once per process (the same bytes every time). */
function imageArchive() {
  archive ??= buildImageArchive();
  return archive;
}

/** A short base directory: the ttrpc socket path must stay under the unix socket limit. */
function baseDir() {
  const probe = path.join(os.tmpdir(), `${PREFIX}XXXXXX`, 'c.sock.ttrpc');
  return Buffer.byteLength(probe) < MAX_SOCKET_PATH - 20 ? os.tmpdir() : '/tmp';
}

function tail(file, count = 5) {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-count).join('\n');
  } catch {
    return '(no log)';
  }
}

/** containerd's path on this process's PATH ('containerd' when it is not found: spawn then says so). */
function containerdBinary() {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = path.join(dir, 'containerd');
    if (dir !== '' && fs.existsSync(candidate)) return candidate;
  }
  return 'containerd';
}

class PrivateContainerd {
  /**
   * Starts an instance. Options: cri (enable the CRI plugin, default false), logLevel
   * ('info'; 'debug' also passes -debug to shims), shimDirs (dirs put first on containerd's
   * PATH, default [<repo>/bin]), systemPath (the rest of its PATH, default this process's), env
   * (extra environment for containerd and its shims), skiffSection (see config.js),
   * stateOnTmpfs (containerd's state dir on a tmpfs of its own, as /run/containerd is on a
   * node: the shims' task files then cost what they cost there; default false), searchable (the
   * instance's dir 0711 instead of 0700, as /run/containerd is on a node: a container whose root
   * is mapped to another host id, a user namespace, then reaches its bundle's rootfs; default false),
   * lts (containerd 2.3.4 from lts.js, its ctr and runc shim, with a version 3 config; default
   * false: the containerd on this process's PATH, version 2).
   */
  static async start(options = {}) {
    if (options.lts) {
      const lts = ltsContainerd();
      if (lts.bin === undefined) throw new Error(lts.missing);
      options = { ...options, bin: lts.bin };
    }
    const stale = await sweepStale();
    if (stale.length > 0) process.stderr.write(`a stale private containerd left behind: ${stale.join('; ')}\n`);
    const dir = fs.mkdtempSync(path.join(baseDir(), PREFIX));
    if (options.searchable) fs.chmodSync(dir, 0o711);
    const instance = new PrivateContainerd(dir, options);
    try {
      await instance.launch();
    } catch (error) {
      await instance.stop().catch(() => undefined);
      throw error;
    }
    return instance;
  }

  constructor(dir, options) {
    this.paths = layout(dir);
    this.options = options;
    /** Where containerd and ctr come from: the lts dir, else this process's PATH. */
    this.binaries = {
      containerd: options.bin === undefined ? containerdBinary() : path.join(options.bin, 'containerd'),
      ctr: options.bin === undefined ? 'ctr' : path.join(options.bin, 'ctr'),
    };
    this.child = undefined;
    this.started = undefined;
    this.stopped = false;
    this.namespaces = new Set();
    const p = this.paths;
    for (const sub of [p.fifoDir, p.cniBinDir, p.cniConfDir]) fs.mkdirSync(sub, { recursive: true, mode: 0o700 });
    if (options.podNetwork) setUpPodNetwork(dir, p);
    if (options.stateOnTmpfs) {
      fs.mkdirSync(p.state, { mode: 0o711 });
      // Unmounted with everything else under the instance's dir by stop() (teardown.js).
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'mode=0711', 'tmpfs', p.state]);
    }
    fs.writeFileSync(p.config, containerdConfig(dir, options), { mode: 0o600 });
    this.writeOwner();
  }

  /** The gRPC socket (what `ctr --address` takes). */
  get address() {
    return this.paths.address;
  }

  /** The daemon's pid while it runs. */
  get pid() {
    return this.child?.pid;
  }

  writeOwner() {
    const record = {
      owner: process.pid,
      ownerStart: startTime(process.pid),
      containerd: this.child?.pid,
      containerdStart: this.started,
      ctr: this.binaries.ctr,
    };
    fs.writeFileSync(this.paths.owner, JSON.stringify(record), { mode: 0o600 });
  }

  async launch() {
    const p = this.paths;
    const shimDirs = this.options.shimDirs ?? [REPO_BIN];
    const env = {
      ...process.env,
      ...this.options.env,
      // The lts dir after the shims: its containerd-shim-runc-v2 before the system's.
      PATH: [
        ...shimDirs,
        ...(this.options.bin === undefined ? [] : [this.options.bin]),
        this.options.systemPath ?? process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
      ].join(':'),
    };
    const log = fs.openSync(p.log, 'a', 0o600);
    let child;
    try {
      // Found on this process's PATH: containerd's own (systemPath) need not have it.
      child = spawn(this.binaries.containerd, ['--config', p.config], { stdio: ['ignore', log, log], env });
    } finally {
      fs.closeSync(log);
    }
    let failed;
    child.once(
      'error',
      (error) => (failed = `containerd could not be started (${error.message}): apt-get install containerd`),
    );
    child.once(
      'exit',
      (code, signal) =>
        (failed ??= `containerd exited ${code ?? signal} before it answered; its log ends:\n${tail(p.log)}`),
    );
    this.child = child;
    await waitUntil(() => child.pid !== undefined || failed !== undefined, 2_000);
    this.started = child.pid === undefined ? undefined : startTime(child.pid);
    this.writeOwner();
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (failed !== undefined) throw new Error(failed);
      if (fs.existsSync(p.address)) {
        const version = await ctr(p.address, 'default', ['version'], {
          timeoutMs: 3_000,
          ctrBinary: this.binaries.ctr,
        });
        if (version.status === 0) return;
      }
      if (Date.now() > deadline)
        throw new Error(
          `containerd did not answer on ${p.address} within ${READY_TIMEOUT_MS / 1000} s; its log ends:\n${tail(p.log)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Runs ctr against this instance in `namespace` (see ctr.js for the options and result). */
  ctr(namespace, args, options = {}) {
    if (!this.namespaces.has(namespace)) {
      this.namespaces.add(namespace);
      fs.writeFileSync(this.paths.namespaces, JSON.stringify([...this.namespaces]), { mode: 0o600 });
    }
    return ctr(this.paths.address, namespace, args, {
      fifoDir: this.paths.fifoDir,
      ctrBinary: this.binaries.ctr,
      ...options,
    });
  }

  /** Imports the busybox and pause images into `namespace` (k8s.io for CRI); throws when ctr fails. */
  async importImages(namespace) {
    if (!fs.existsSync(this.paths.images)) fs.writeFileSync(this.paths.images, imageArchive(), { mode: 0o600 });
    const args = ['images', 'import', this.paths.images];
    const result = await this.ctr(namespace, args, { timeoutMs: 60_000 });
    if (result.status !== 0) throw new Error(describe(args, result));
    return { busybox: BUSYBOX_IMAGE, pause: PAUSE_IMAGE };
  }

  /**
   * Stops the daemon and starts it again on the same state, as a restart of the service
   * would; shims and containers keep running. `signal`: SIGTERM (a clean stop) or SIGKILL (a crash).
   */
  async restart({ signal = 'SIGTERM' } = {}) {
    const { child } = this;
    if (child !== undefined && alive(child.pid, this.started)) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    }
    await this.launch();
  }

  /** Removes everything this instance made; throws one line listing what was left behind. */
  async stop() {
    if (this.stopped) return;
    this.stopped = true;
    const left = await teardown(this.paths.dir, { pid: this.child?.pid, start: this.started, ctr: this.binaries.ctr });
    if (left.length > 0) throw new Error(`the private containerd left behind: ${left.join('; ')}`);
  }
}

/**
 * Whether this process tears the stale instance in `dir` down: test files start instances in
 * parallel, and each start sweeps, so the first sweep to claim an instance does it and the
 * others leave it (one whose claimer died is claimed again). The claim goes with the directory.
 */
function claim(dir) {
  const file = path.join(dir, 'sweeping');
  for (let tries = 0; tries < 2; tries++) {
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid, start: startTime(process.pid) }), { flag: 'wx' });
      return true;
    } catch (err) {
      if (err.code !== 'EEXIST') return false;
      let claimer;
      try {
        claimer = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch {
        return false; // being written: its writer is alive
      }
      if (alive(claimer.pid, claimer.start)) return false;
      fs.rmSync(file, { force: true });
    }
  }
  return false;
}

/** Tears down instances whose owner process is gone (killed before it could stop them); resolves what was left. */
async function sweepStale() {
  const left = [];
  for (const base of new Set([os.tmpdir(), '/tmp'])) {
    let names;
    try {
      names = fs.readdirSync(base).filter((name) => name.startsWith(PREFIX));
    } catch {
      continue;
    }
    for (const name of names) {
      const dir = path.join(base, name);
      let record;
      try {
        record = JSON.parse(fs.readFileSync(layout(dir).owner, 'utf8'));
      } catch {
        continue;
      }
      if (alive(record.owner, record.ownerStart) || !claim(dir)) continue;
      const daemon = { pid: record.containerd, start: record.containerdStart, ctr: record.ctr };
      left.push(...(await teardown(dir, daemon)));
    }
  }
  return left;
}

module.exports = { PrivateContainerd, sweepStale, BUSYBOX_IMAGE, PAUSE_IMAGE };

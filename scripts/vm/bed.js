'use strict';
// One run of the VM bed (docs/vm.md): boots a root file with skiff installed (install.js) under
// qemu's emulation, lets the guest import its images and run a command (guest/guest.sh), streams
// the command's output back and returns its exit status. /dev/kvm here may be a hypervisor that cannot run a stock kernel, so the bed
// always emulates (TCG): slow, but the same everywhere.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** Printed by a kernel that gives up early; such a boot is tried once more. */
const PANIC = /Kernel panic - not syncing|end Kernel panic/;
const POLL_MS = 200;

/** A host folder the guest mounts read-write at /mnt/TAG (9p). */
function parseShare(text) {
  const at = text.lastIndexOf(':');
  const dir = at > 0 ? text.slice(0, at) : '';
  const tag = at > 0 ? text.slice(at + 1) : '';
  if (!/^[a-z][a-z0-9_-]{0,30}$/.test(tag) || tag.startsWith('skiff'))
    throw new Error(
      `--share ${text}: give DIR:TAG, TAG in lower-case letters, digits, - and _ (not starting with skiff)`,
    );
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new Error(`--share ${text}: ${dir} is not a directory`);
  return { dir: path.resolve(dir), tag };
}

function virtfs(dir, tag) {
  return ['-virtfs', `local,path=${dir},mount_tag=${tag},security_model=none,id=${tag}`];
}

function qemuArgs(image, control, shares) {
  return [
    '-accel',
    // One host thread for both vCPUs: with a thread each (thread=multi), a vCPU could run a
    // static branch the other was patching (the int3 of text_poke_bp seen after the patch was
    // done) and the kernel panicked, at boot and mid-suite (docs/vm.md, "Why one TCG thread").
    'tcg,thread=single',
    '-cpu',
    'max',
    '-m',
    '3072',
    '-smp',
    '2',
    '-nic',
    'none',
    '-display',
    'none',
    '-monitor',
    'none',
    '-serial',
    'stdio',
    '-no-reboot',
    '-kernel',
    image.kernel,
    '-initrd',
    image.initrd,
    '-append',
    'console=ttyS0 root=/dev/vda rw panic=-1 quiet mitigations=off audit=0',
    '-drive',
    // A boot tried again after a panic starts from the same bytes.
    `file=${image.rootfs},if=virtio,format=raw,snapshot=on`,
    ...virtfs(control, 'skiffvm'),
    ...shares.flatMap((share) => virtfs(share.dir, share.tag)),
  ];
}

/** Copies what a file gained since `offset` to `out`; returns the new offset. */
function pump(file, offset, out) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return offset;
  }
  try {
    const buffer = Buffer.alloc(65536);
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, offset);
      if (n === 0) return offset;
      out.write(buffer.subarray(0, n));
      offset += n;
    }
  } finally {
    fs.closeSync(fd);
  }
}

function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Boots once. Resolves { status } with the command's exit status, { panicked, booted } when the
 * kernel panicked (the console's lines up to the panic; whether the guest had come up), or
 * rejects with a one-line reason (a failed set-up, a timeout, qemu's own error).
 */
function bootOnce(image, control, shares, options) {
  const log = options.log;
  const progress = path.join(control, 'progress');
  const files = { stdout: path.join(control, 'stdout'), stderr: path.join(control, 'stderr') };
  for (const file of ['progress', 'setup.log', 'stdout', 'stderr', 'status'])
    fs.rmSync(path.join(control, file), { force: true });
  const console = path.join(control, 'console.log');
  const consoleFd = fs.openSync(console, 'w');
  const started = Date.now();
  const qemu = spawn('qemu-system-x86_64', qemuArgs(image, control, shares), {
    stdio: ['ignore', consoleFd, consoleFd],
  });
  fs.closeSync(consoleFd);
  return new Promise((resolve, reject) => {
    const offsets = { stdout: 0, stderr: 0, progress: 0 };
    let booted = false;
    let done = false;
    const tick = () => {
      offsets.stdout = pump(files.stdout, offsets.stdout, options.stdout ?? process.stdout);
      offsets.stderr = pump(files.stderr, offsets.stderr, options.stderr ?? process.stderr);
      const lines = readText(progress).slice(offsets.progress);
      offsets.progress += lines.length;
      for (const line of lines.split('\n').filter(Boolean)) {
        booted = true;
        const [uptime, ...words] = line.split(' ');
        log(
          `${words.join(' ')} (guest uptime ${Number(uptime).toFixed(0)} s, ${((Date.now() - started) / 1000).toFixed(0)} s since qemu started)`,
        );
      }
      const elapsed = Date.now() - started;
      if (!booted && elapsed > options.bootTimeoutMs)
        stop(`the guest did not boot within ${options.bootTimeoutMs / 1000} s`);
      else if (elapsed > options.timeoutMs) stop(`timed out after ${options.timeoutMs / 1000} s`);
    };
    const timer = setInterval(tick, POLL_MS);
    let failure;
    const stop = (reason) => {
      failure ??= reason;
      qemu.kill('SIGKILL');
    };
    const onSignal = () => stop('interrupted');
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    qemu.on('error', (err) => stop(`qemu-system-x86_64: ${err.message}`));
    qemu.on('close', (code) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      tick();
      const text = readText(console);
      const status = readText(path.join(control, 'status')).trim();
      if (status === 'setup-failed') {
        const tail = readText(path.join(control, 'setup.log')).trim().split('\n').slice(-8).join('\n');
        return reject(new Error(`the guest's set-up of skiff failed:\n${tail}`));
      }
      if (/^\d+$/.test(status)) return resolve({ status: Number(status) });
      // The console's lines up to the panic line: what the kernel said about it.
      if (PANIC.test(text)) {
        const lines = text.split('\n');
        const at = lines.findIndex((line) => PANIC.test(line));
        return resolve({ panicked: lines.slice(Math.max(0, at - 24), at + 1).join('\n'), booted });
      }
      const tail = text.trim().split('\n').slice(-5).join('\n');
      reject(
        new Error(
          `${failure ?? `qemu ended (exit ${code}) before the command did`}; the console's last lines:\n${tail}`,
        ),
      );
    });
  });
}

/**
 * Boots `image` ({ kernel, initrd, rootfs }: images.js and install.js) and runs `command` (argv)
 * as root in it once containerd answers. control holds the guest's files: guest.sh, busybox.tar.
 * A boot whose kernel panicked is tried once more. Resolves the command's exit status.
 */
async function runInGuest(image, command, { shares = [], control, log, ...rest }) {
  const options = { bootTimeoutMs: 300_000, timeoutMs: 3_600_000, log, ...rest };
  fs.copyFileSync(path.join(__dirname, 'guest', 'guest.sh'), path.join(control, 'guest.sh'));
  fs.writeFileSync(path.join(control, 'shares'), shares.map((share) => `${share.tag}\n`).join(''));
  fs.writeFileSync(path.join(control, 'command.sh'), `${command.map(shellQuote).join(' ')}\n`);
  for (let attempt = 1; ; attempt++) {
    const result = await bootOnce(image, control, shares, options);
    if (result.panicked === undefined) return result.status;
    const when = result.booted ? 'once up' : 'while booting';
    if (attempt === 2) throw new Error(`the guest kernel panicked twice, ${when} the second time:\n${result.panicked}`);
    log(`the guest kernel panicked ${when}: trying once more; the console:\n${result.panicked}`);
  }
}

function shellQuote(word) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A fresh control folder for one run (0700: it holds the guest's command and output). */
function controlDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-vm-'));
}

module.exports = { controlDir, parseShare, runInGuest, shellQuote };

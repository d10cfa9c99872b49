#!/usr/bin/env node
'use strict';
// The VM bed (docs/vm.md): runs a command as root in a Debian guest whose containerd runs
// skiff as a node would, and exits with the command's status.
//
//   npm run vm -- IMAGE [--share DIR:TAG]... [--] COMMAND...
//
// IMAGE is trixie, lts or sid (scripts/vm/images.js). Each --share mounts a host folder read-write
// at /mnt/TAG. The bed's own failures (a missing tool, a failed build or set-up, a panic twice,
// a timeout) are one line on stderr and exit 125, which no command's status is taken for.
// SKIFF_VM_CACHE: where images are kept (~/.cache/skiff/vm); SKIFF_VM_PACKAGES: more Debian
// packages in the image; SKIFF_VM_TARBALL: a packed skiff to install instead of packing the
// checkout; SKIFF_VM_TIMEOUT: seconds the whole run may take (3600).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { writeImageArchive } = require('../busybox-image');
const { controlDir, parseShare, runInGuest } = require('./bed');
const { missingTools } = require('./commands');
const { ensureImage, IMAGES } = require('./images');
const { installedRootfs } = require('./install');
const { packSkiff } = require('./pack');

const BED_FAILED = 125;
const USAGE = 'usage: npm run vm -- IMAGE [--share DIR:TAG]... [--] COMMAND...';

function parseArgs(argv) {
  const [image, ...rest] = argv;
  if (image === undefined || !(image in IMAGES))
    throw new Error(`${USAGE}\nIMAGE is one of: ${Object.keys(IMAGES).join(', ')}`);
  const shares = [];
  let i = 0;
  while (i < rest.length && rest[i] === '--share') {
    if (rest[i + 1] === undefined) throw new Error(`--share needs DIR:TAG\n${USAGE}`);
    shares.push(parseShare(rest[i + 1]));
    i += 2;
  }
  if (rest[i] === '--') i++;
  const command = rest.slice(i);
  if (command.length === 0) throw new Error(`no COMMAND\n${USAGE}`);
  return { image, shares, command };
}

const log = (line) => process.stderr.write(`vm: ${line}\n`);

/**
 * Runs `command` in a fresh boot of `image`; resolves its exit status. `tarball` may be given by
 * a caller that runs several (test:vm packs once for every image); `stdout` and `stderr`
 * (writables, by default the process's own) receive the command's output, and `say` the bed's
 * lines (a caller running images side by side names each).
 */
async function vm({ image, shares = [], command, tarball, timeoutMs, stdout, stderr, say = log }) {
  const problem = missingTools();
  if (problem !== undefined) throw new Error(problem);
  const paths = await ensureImage(image, say);
  const control = controlDir();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-vm-root-'));
  try {
    const tgz = tarball ?? (await packSkiff(work, say));
    const rootfs = await installedRootfs(paths, tgz, work, say);
    writeImageArchive(path.join(control, 'busybox.tar'));
    say(`booting ${image} (${path.basename(paths.dir)}, emulated)`);
    return await runInGuest({ ...paths, rootfs }, command, {
      shares,
      control,
      log: say,
      timeoutMs: timeoutMs ?? Number(process.env.SKIFF_VM_TIMEOUT || 3600) * 1000,
      stdout,
      stderr,
    });
  } finally {
    fs.rmSync(control, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { BED_FAILED, vm };

if (require.main === module) {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`vm: ${err.message}\n`);
    process.exit(2);
  }
  vm(args).then(
    (status) => process.exit(status),
    (err) => {
      process.stderr.write(`vm: ${err.message}\n`);
      process.exit(BED_FAILED);
    },
  );
}

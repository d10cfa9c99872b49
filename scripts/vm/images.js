'use strict';
// The guests of the VM bed (docs/vm.md): Debian root filesystems built by mmdebstrap from
// Debian's packages, with systemd as init on cgroup v2 alone, and the kernel and initrd of
// their own linux-image package. One per containerd line an operator runs today:
//   trixie  kernel 6.12, containerd 1.7, runc 1.1, crun, criu, Node.js 20 (Debian 13, stable)
//   lts     sid's packages with upstream containerd 2.3.4 (ctr and runc shim too) laid over
//           Debian's: the line upstream supports longest, which no Debian suite packages
//   sid     kernel 7.x, containerd 2.1, runc 1.3, crun, criu, Node.js 24 (unstable); by name
//           only, 2.1 being out of upstream's support
// An image is cached under its key, the hash of everything that goes into it, so a changed
// package list (SKIFF_VM_PACKAGES too) or a changed build step makes a new one.
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { run } = require('./commands');
const { applyOverlay, archiveMissing, overlayProblem } = require('./overlay');
const { LTS_BINARIES, LTS_SHA256, LTS_VERSION } = require('../containerd/lts');

const MIRROR = 'http://deb.debian.org/debian';

/** What every guest has: init, the kernel, the container stack, Node and npm of the release itself. */
const PACKAGES = [
  'systemd',
  'systemd-sysv',
  'udev',
  'kmod',
  'procps',
  'linux-image-amd64',
  'initramfs-tools',
  'apparmor',
  'containerd',
  'runc',
  'crun',
  'criu',
  // criu's dump locks the container's network with iptables-restore; without it every dump fails.
  'iptables',
  'nodejs',
  'npm',
];

// sid's Release file can read as expired on a machine whose clock is ahead of the mirror's.
const SID_APTOPTS = ['Acquire::Check-Valid-Until "false"'];

/**
 * containerd 2.3.4 as upstream builds it (static), from `shared/` beside the checkout
 * (scripts/containerd/lts.js checks and unpacks it): its sums go into the image's key. Debian's
 * unit and config stay.
 */
const CONTAINERD_LTS = {
  version: LTS_VERSION,
  sha256: LTS_SHA256,
  files: Object.fromEntries(LTS_BINARIES.map((name) => [`usr/bin/${name}`, name])),
};

/**
 * `ci`: in the default run of `npm run test:vm` (CI's guests): Debian's stable containerd and
 * upstream's supported line (docs/vm.md, "The lts image"); sid (2.1, out of upstream's support)
 * runs by name.
 */
const IMAGES = {
  trixie: { suite: 'trixie', aptopts: [], ci: true },
  lts: { suite: 'sid', aptopts: SID_APTOPTS, overlay: CONTAINERD_LTS, ci: true },
  sid: { suite: 'sid', aptopts: SID_APTOPTS, ci: false },
};

/** Why `name` cannot be built or used here (one line), or undefined: an overlay's archive missing or changed. */
function imageProblem(name) {
  if (!(name in IMAGES)) return `unknown image ${name}: one of ${Object.keys(IMAGES).join(', ')}`;
  const { overlay } = IMAGES[name];
  if (overlay === undefined) return undefined;
  const problem = overlayProblem();
  return problem && `the ${name} image: ${problem}`;
}

/**
 * The images a run without SKIFF_VM_IMAGES takes: CI's. One whose archive is missing here is
 * left out with one line (`log`), unless `strict` (SKIFF_VM_TESTS=1), when that is an error;
 * a changed archive is always one.
 */
function defaultImages(log, strict) {
  const images = [];
  for (const [name, image] of Object.entries(IMAGES)) {
    if (!image.ci) continue;
    const problem = imageProblem(name);
    if (problem === undefined) images.push(name);
    else if (!archiveMissing(image.overlay)) throw new Error(problem);
    else if (strict) throw new Error(`SKIFF_VM_TESTS=1 but ${problem}`);
    else log(`left out ${problem}`);
  }
  return images;
}

/**
 * Run inside the new root filesystem (mmdebstrap's customize hook, "$1" is its path): the one
 * unit that makes a guest a bed. At boot it mounts the host's control folder (9p tag skiffvm)
 * and runs the guest.sh the host put there, so that the steps of a run change with the
 * checkout, not the image. The serial getty is masked: it hangs up a script writing to ttyS0.
 */
const CUSTOMIZE = String.raw`
set -e
cat > "$1/etc/systemd/system/skiff-vm.service" <<'UNIT'
[Unit]
Description=skiff VM bed: the host's command
After=basic.target
[Service]
Type=oneshot
StandardOutput=journal+console
StandardError=journal+console
ExecStart=/bin/sh -c 'mkdir -p /run/skiff-vm && mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 skiffvm /run/skiff-vm && exec /bin/bash /run/skiff-vm/guest.sh'
[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/skiff-vm.service "$1/etc/systemd/system/multi-user.target.wants/skiff-vm.service"
# Under emulation every unit costs seconds: what a bed node does not need is masked. udev
# included: the root is mounted by the initrd, there is no network device, and a 9p mount
# loads its own modules.
for unit in serial-getty@ttyS0.service getty@tty1.service modprobe@drm.service modprobe@efi_pstore.service \
  modprobe@fuse.service modprobe@configfs.service systemd-binfmt.service apt-daily.timer apt-daily-upgrade.timer \
  e2scrub_all.timer fstrim.timer dpkg-db-backup.timer systemd-tmpfiles-clean.timer systemd-udevd.service \
  systemd-udevd-control.socket systemd-udevd-kernel.socket systemd-udev-trigger.service \
  systemd-udev-load-credentials.service systemd-udev-settle.service; do
  ln -sf /dev/null "$1/etc/systemd/system/$unit"
done
echo skiff-vm > "$1/etc/hostname"
# The initrd mounts the root read-write; an empty fstab keeps systemd from waiting for its device again.
: > "$1/etc/fstab"
# A small initrd: only what finds the root (the default takes every module, 36 MB to unpack under emulation).
echo MODULES=list > "$1/etc/initramfs-tools/conf.d/skiff-vm.conf"
printf 'virtio_pci\nvirtio_blk\next4\n' >> "$1/etc/initramfs-tools/modules"
chroot "$1" update-initramfs -u -k all
rm -f "$1"/boot/*.dpkg-bak "$1"/boot/*.new
`;

/** The installed versions of `packages` in a root tree, from dpkg's status file. */
function packageVersions(tree, packages) {
  const status = fs.readFileSync(path.join(tree, 'var/lib/dpkg/status'), 'utf8');
  const versions = {};
  for (const stanza of status.split('\n\n')) {
    const name = /^Package: (.+)$/m.exec(stanza)?.[1];
    if (packages.includes(name)) versions[name] = /^Version: (.+)$/m.exec(stanza)?.[1];
  }
  return versions;
}

/** Where images are kept: SKIFF_VM_CACHE, else ~/.cache/skiff/vm. */
function cacheRoot(env = process.env) {
  return env.SKIFF_VM_CACHE || path.join(os.homedir(), '.cache', 'skiff', 'vm');
}

function extraPackages(env = process.env) {
  return (env.SKIFF_VM_PACKAGES || '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .sort();
}

/** The recipe of an image: everything its bytes depend on, so its hash names it. */
function recipe(name, env = process.env) {
  const image = IMAGES[name];
  if (image === undefined) throw new Error(`unknown image ${name}: one of ${Object.keys(IMAGES).join(', ')}`);
  const packages = [...new Set([...PACKAGES, ...extraPackages(env)])].sort();
  return {
    name,
    suite: image.suite,
    mirror: MIRROR,
    aptopts: image.aptopts,
    packages,
    customize: CUSTOMIZE,
    ...(image.overlay && { overlay: image.overlay }),
    format: 2,
  };
}

function imageKey(name, env = process.env) {
  return createHash('sha256')
    .update(JSON.stringify(recipe(name, env)))
    .digest('hex')
    .slice(0, 16);
}

/** The cached image's files: its root tree, vmlinuz, initrd.img, and recipe.json once complete. */
function imagePaths(name, env = process.env) {
  const dir = path.join(cacheRoot(env), `${name}-${imageKey(name, env)}`);
  return {
    dir,
    tree: path.join(dir, 'tree'),
    kernel: path.join(dir, 'vmlinuz'),
    initrd: path.join(dir, 'initrd.img'),
    done: path.join(dir, 'recipe.json'),
  };
}

/**
 * The image, built when its key is not cached yet: mmdebstrap into a directory (kept: each run
 * installs skiff over it, scripts/vm/install.js), the kernel and initrd taken out of /boot. A
 * build that fails leaves nothing that could pass for an image. Returns imagePaths.
 */
async function ensureImage(name, log, env = process.env) {
  const problem = imageProblem(name);
  if (problem !== undefined) throw new Error(problem);
  const paths = imagePaths(name, env);
  if (fs.existsSync(paths.done)) return paths;
  const { suite, mirror, aptopts, packages, customize } = recipe(name, env);
  const { overlay } = IMAGES[name];
  fs.mkdirSync(cacheRoot(env), { recursive: true });
  const work = fs.mkdtempSync(path.join(cacheRoot(env), `.build-${name}-`));
  const tree = path.join(work, 'tree');
  const started = Date.now();
  try {
    log(`building the ${name} image (mmdebstrap ${suite}, ${packages.length} packages)`);
    await run('mmdebstrap', [
      '--variant=minbase',
      `--include=${packages.join(',')}`,
      ...aptopts.map((opt) => `--aptopt=${opt}`),
      `--customize-hook=${customize}`,
      suite,
      tree,
      mirror,
    ]);
    const boot = path.join(tree, 'boot');
    const kernel = fs.readdirSync(boot).find((f) => /^vmlinuz-/.test(f));
    if (kernel === undefined) throw new Error(`the ${name} image has no kernel in /boot`);
    const version = kernel.slice('vmlinuz-'.length);
    fs.copyFileSync(path.join(boot, kernel), path.join(work, 'vmlinuz'));
    fs.copyFileSync(path.join(boot, `initrd.img-${version}`), path.join(work, 'initrd.img'));
    const versions = {
      kernel: version,
      ...packageVersions(tree, ['containerd', 'runc', 'crun', 'criu', 'nodejs', 'systemd']),
    };
    if (overlay !== undefined) {
      applyOverlay(overlay, tree);
      // The binary's own word (static, so it runs here); the package's version is kept beside it.
      const said = await run(path.join(tree, 'usr/bin/containerd'), ['--version']);
      versions.containerdPackage = versions.containerd;
      versions.containerd = said.trim().split(/\s+/)[2].replace(/^v/, '');
    }
    fs.writeFileSync(
      path.join(work, 'recipe.json'),
      `${JSON.stringify({ ...recipe(name, env), versions }, null, 2)}\n`,
    );
    fs.rmSync(paths.dir, { recursive: true, force: true });
    fs.renameSync(work, paths.dir);
    // An image of another recipe is never used again (about 1 GB each): only the newest is kept.
    for (const old of fs.readdirSync(cacheRoot(env)))
      if (old.startsWith(`${name}-`) && old !== path.basename(paths.dir))
        fs.rmSync(path.join(cacheRoot(env), old), { recursive: true, force: true });
    log(`built the ${name} image in ${((Date.now() - started) / 1000).toFixed(0)} s: ${paths.dir}`);
    return paths;
  } catch (err) {
    fs.rmSync(work, { recursive: true, force: true });
    throw err;
  }
}

module.exports = {
  IMAGES,
  PACKAGES,
  cacheRoot,
  defaultImages,
  ensureImage,
  imageKey,
  imagePaths,
  imageProblem,
  recipe,
};

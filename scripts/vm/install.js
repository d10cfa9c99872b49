'use strict';
// skiff installed on a guest as an operator installs it on a node (README "On a Kubernetes
// node", docs/install.md): the packed tarball, `npm install -g` by the guest's own npm and
// Node.js, `skiff containerd config` appended to containerd's config as printed for the
// guest's containerd. It runs on the host in a chroot of the image's tree under an overlay, so
// the image stays as built: under emulation the same install takes minutes (7,700 files),
// natively seconds. The guest boots with the result and starts containerd once, with skiff's
// section in its config. The npm cache it fills is the bed's (<cache>/npm), so a second run
// fetches nothing; the guest itself has no network.
const fs = require('node:fs');
const path = require('node:path');
const { run } = require('./commands');
const { cacheRoot } = require('./images');

/**
 * Run inside the chroot. Debian's config.toml is version 2 for containerd 1.7 and 2.x alike, and
 * skiff prints its section in the file's version (2.x migrates it). Where the config imports a conf.d
 * (containerd 2.x's own default config does), the section goes there as a drop-in. The guest has
 * no network, so CRI's pod sandboxes use the pause image the guest imports at boot.
 */
const INSTALL = String.raw`
set -e
npm install -g --prefer-offline --no-audit --no-fund --no-update-notifier --logs-max=0 --cache /run/skiff-npm /tmp/skiff.tgz
# For the upgrade suite: the same package as a newer version, and the npm cache that installs it
# offline in the guest (test/vm/upgrade.test.js).
mkdir -p /var/lib/skiff-vm/next
tar -xzf /tmp/skiff.tgz -C /var/lib/skiff-vm/next
node -e 'const f = process.argv[1]; const p = JSON.parse(require("fs").readFileSync(f)); const v = p.version.split(/[.-]/); p.version = v[0] + "." + v[1] + "." + (Number(v[2]) + 1); require("fs").writeFileSync(f, JSON.stringify(p, null, 2))' \
  /var/lib/skiff-vm/next/package/package.json
tar -czf /var/lib/skiff-vm/skiff-next.tgz -C /var/lib/skiff-vm/next package
rm -r /var/lib/skiff-vm/next /tmp/skiff.tgz
cp -r /run/skiff-npm /var/cache/skiff-vm-npm
command -v skiff containerd-shim-skiff-v2
# Debian's binaries print "2.1.9+unknown", upstream's "v2.3.4".
major=$(containerd --version | awk '{ sub(/^v/, "", $3); split($3, v, "."); print v[1] + 0 }')
minor=$(containerd --version | awk '{ sub(/^v/, "", $3); split($3, v, "."); print v[2] + 0 }')
if [ "$major" -ge 2 ] && grep -Eq '^imports *=.*conf\.d' /etc/containerd/config.toml; then
  mkdir -p /etc/containerd/conf.d
  { echo 'version = 3'; skiff containerd config; } > /etc/containerd/conf.d/skiff.toml
  skiff_config=/etc/containerd/conf.d/skiff.toml
else
  skiff containerd config >> /etc/containerd/config.toml
  skiff_config=/etc/containerd/config.toml
fi
# containerd 2.3: the sandbox mode's handler beside skiff's (docs/cri.md, "The sandbox mode"), for the CRI suite.
if [ "$major" -gt 2 ] || { [ "$major" -eq 2 ] && [ "$minor" -ge 3 ]; }; then
  skiff containerd config --handler skiff-sandbox --sandboxer shim --config-file "$skiff_config" >> "$skiff_config"
  grep -Eq '(sandboxer|sandbox_mode) = "shim"' "$skiff_config"
fi
sed -i 's|^\( *\)\[plugins."io.containerd.grpc.v1.cri"\]$|&\n\1  sandbox_image = "docker.io/library/skiff-pause:latest"|' \
  /etc/containerd/config.toml
grep -q skiff-pause /etc/containerd/config.toml
# containerd 2.3.4 turned CRI's restore through CreateContainer off by default (its RELEASES.md):
# the checkpoint suite restores through both handlers, as an operator who wants it sets it
# (docs/cri.md). A version 2 file's CRI table moves to 2.3's runtime plugin whole.
if [ "$major" -gt 2 ] || { [ "$major" -eq 2 ] && [ "$minor" -ge 3 ]; }; then
  sed -i 's|^\( *\)\[plugins."io.containerd.grpc.v1.cri"\]$|&\n\1  enable_experimental_restore_via_create = true|' \
    /etc/containerd/config.toml
  grep -q 'enable_experimental_restore_via_create = true' /etc/containerd/config.toml
fi
# The baseline of kubelet's systemd cgroup driver: containerd's runc shim told so by its options.
cat >> /etc/containerd/config.toml <<'TOML'
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc-systemd]
  runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc-systemd.options]
    SystemdCgroup = true
TOML
# The node daemon (docs/node-daemon.md): the serving process of the CRI plugin's namespace from boot.
skiff containerd unit > /etc/systemd/system/skiff@.service
mkdir -p /etc/systemd/system/multi-user.target.wants
ln -sf /etc/systemd/system/skiff@.service /etc/systemd/system/multi-user.target.wants/skiff@k8s.io.service
skiff --version
`;

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Makes `<work>/rootfs.img`: the image's tree with skiff installed from `tarball`, as an ext4
 * file (mke2fs -d: no loop device). Resolves its path and what `skiff --version` printed.
 */
async function installedRootfs(image, tarball, work, log, env = process.env) {
  const dirs = { upper: 'upper', scratch: 'overlay-work', root: 'root' };
  for (const key of Object.keys(dirs)) {
    dirs[key] = path.join(work, dirs[key]);
    fs.mkdirSync(dirs[key], { recursive: true });
  }
  const { root } = dirs;
  const started = Date.now();
  const overlay = `lowerdir=${image.tree},upperdir=${dirs.upper},workdir=${dirs.scratch}`;
  await run('mount', ['-t', 'overlay', 'overlay', '-o', overlay, root]);
  const bound = [];
  let version;
  try {
    try {
      for (const dir of ['proc', 'sys', 'dev']) {
        await run('mount', ['--rbind', `/${dir}`, path.join(root, dir)]);
        bound.push(path.join(root, dir));
      }
      const cache = path.join(cacheRoot(env), 'npm');
      fs.mkdirSync(cache, { recursive: true });
      fs.mkdirSync(path.join(root, 'run/skiff-npm'), { recursive: true });
      await run('mount', ['--bind', cache, path.join(root, 'run/skiff-npm')]);
      bound.push(path.join(root, 'run/skiff-npm'));
      fs.copyFileSync(tarball, path.join(root, 'tmp/skiff.tgz'));
      // Replaced, never written through: a symbolic link there would point into the host.
      fs.rmSync(path.join(root, 'etc/resolv.conf'), { force: true });
      fs.copyFileSync('/etc/resolv.conf', path.join(root, 'etc/resolv.conf'));
      // A machine whose TLS goes through a proxy of its own names its CA bundle here (npm's registry).
      const hostCa = env.NODE_EXTRA_CA_CERTS;
      const chrootEnv = { PATH, HOME: '/root', LANG: 'C.UTF-8' };
      if (hostCa && fs.existsSync(hostCa)) {
        fs.copyFileSync(hostCa, path.join(root, 'run/host-ca.crt'));
        chrootEnv.NODE_EXTRA_CA_CERTS = '/run/host-ca.crt';
      }
      const out = await run('chroot', [root, '/bin/sh', '-c', INSTALL], { env: chrootEnv });
      version =
        out
          .trim()
          .split('\n')
          .find((line) => line.startsWith('skiff-cli/')) ?? '(no version)';
      fs.rmSync(path.join(root, 'run/host-ca.crt'), { force: true });
    } finally {
      for (const dir of bound.reverse()) await run('umount', ['-R', '-l', dir]).catch(() => undefined);
    }
    const rootfs = path.join(work, 'rootfs.img');
    await run('mke2fs', ['-q', '-t', 'ext4', '-L', 'skiff-vm', '-d', root, rootfs, '6G']);
    log(`skiff installed by the guest's npm (${version}) in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    return rootfs;
  } finally {
    await run('umount', ['-l', root]).catch(() => undefined);
    fs.rmSync(dirs.upper, { recursive: true, force: true });
  }
}

module.exports = { installedRootfs };

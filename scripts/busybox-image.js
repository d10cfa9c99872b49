#!/usr/bin/env node
'use strict';
// Builds, offline, an OCI image-layout archive that `ctr image import` accepts, from
// Debian's busybox-static: one gzip'ed layer (/bin/busybox, a symlink per applet, /etc/passwd)
// shared by two images, so no registry is ever asked:
//   docker.io/library/skiff-busybox:latest  Cmd ["sh"]
//   docker.io/library/skiff-pause:latest    a pod sandbox's "pause": sleeps until SIGTERM/SIGINT,
//                                           then exits 0 (a plain pid-1 `sleep` would ignore SIGTERM)
// The names are local: containerd finds them in its store and never pulls them. The bytes
// are the same for the same busybox, so a second import is a no-op.
// Layout: https://github.com/opencontainers/image-spec/blob/v1.0.2/image-layout.md
//
//   node scripts/busybox-image.js <out.tar>
//
// Needs /bin/busybox (apt-get install busybox-static); runs without root.
const { execFileSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { tar } = require('./tar-writer');

const BUSYBOX = '/bin/busybox';
const BUSYBOX_IMAGE = 'docker.io/library/skiff-busybox:latest';
const PAUSE_IMAGE = 'docker.io/library/skiff-pause:latest';
const ENV = ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'];
/** Waits in a child so the trap runs at once; kills the child on the way out. */
const PAUSE = [
  '/bin/sh',
  '-c',
  "trap 'kill $! 2>/dev/null; exit 0' TERM INT; while :; do sleep 2147483647 & wait $!; done",
];

const MEDIA = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
};

/** OCI architecture names for Node's process.arch. */
const ARCH = {
  x64: 'amd64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: '386',
  ppc64: 'ppc64le',
  s390x: 's390x',
  riscv64: 'riscv64',
};

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** The root filesystem as tar entries (the same tree scripts/busybox-bundle.js makes on disk). */
function rootfsEntries() {
  if (!fs.existsSync(BUSYBOX)) throw new Error(`${BUSYBOX} is missing: apt-get install busybox-static`);
  const entries = [];
  for (const dir of ['bin', 'dev', 'etc', 'proc', 'root', 'sbin', 'sys', 'usr', 'usr/bin', 'usr/sbin'])
    entries.push({ dir });
  entries.push({ dir: 'tmp', mode: 0o1777 });
  entries.push({ file: 'bin/busybox', data: fs.readFileSync(BUSYBOX), mode: 0o755 });
  entries.push({ file: 'etc/passwd', data: 'root:x:0:0:root:/root:/bin/sh\n' });
  entries.push({ file: 'etc/group', data: 'root:x:0:\n' });
  const applets = new Set(
    execFileSync(BUSYBOX, ['--list-full'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l !== '' && l !== 'bin/busybox'),
  );
  for (const applet of [...applets].sort()) entries.push({ symlink: applet, target: '/bin/busybox' });
  return entries;
}

function blob(blobs, mediaType, data) {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(JSON.stringify(data));
  const hex = sha256(bytes);
  blobs.set(hex, bytes);
  return { mediaType, digest: `sha256:${hex}`, size: bytes.length };
}

/** The whole archive as a Buffer. */
function buildImageArchive() {
  const layerTar = tar(rootfsEntries());
  const layerGz = zlib.gzipSync(layerTar, { level: 6 });
  const blobs = new Map();
  const layer = blob(blobs, MEDIA.layer, layerGz);
  const platform = { architecture: ARCH[process.arch] ?? process.arch, os: 'linux' };
  const image = (name, config) => {
    const configDesc = blob(blobs, MEDIA.config, {
      ...platform,
      config: { Env: ENV, WorkingDir: '/', ...config },
      rootfs: { type: 'layers', diff_ids: [`sha256:${sha256(layerTar)}`] },
    });
    const manifest = blob(blobs, MEDIA.manifest, {
      schemaVersion: 2,
      mediaType: MEDIA.manifest,
      config: configDesc,
      layers: [layer],
    });
    return { ...manifest, platform, annotations: { 'io.containerd.image.name': name } };
  };
  const index = {
    schemaVersion: 2,
    mediaType: MEDIA.index,
    manifests: [image(BUSYBOX_IMAGE, { Cmd: ['sh'] }), image(PAUSE_IMAGE, { Entrypoint: PAUSE })],
  };
  return tar([
    { file: 'oci-layout', data: JSON.stringify({ imageLayoutVersion: '1.0.0' }) },
    { file: 'index.json', data: JSON.stringify(index) },
    { dir: 'blobs' },
    { dir: 'blobs/sha256' },
    ...[...blobs].map(([hex, data]) => ({ file: `blobs/sha256/${hex}`, data })),
  ]);
}

/** Writes the archive to `file` and returns the file's path. */
function writeImageArchive(file) {
  fs.writeFileSync(file, buildImageArchive(), { mode: 0o600 });
  return file;
}

module.exports = { BUSYBOX_IMAGE, PAUSE_IMAGE, buildImageArchive, writeImageArchive };

if (require.main === module) {
  const out = process.argv[2];
  if (out === undefined) {
    process.stderr.write('usage: node scripts/busybox-image.js <out.tar>\n');
    process.exit(2);
  }
  writeImageArchive(path.resolve(out));
  process.stdout.write(
    `image archive ready: ${path.resolve(out)} (${BUSYBOX_IMAGE}, ${PAUSE_IMAGE}); ctr -n NS image import ${out}\n`,
  );
}

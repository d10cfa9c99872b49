'use strict';
// containerd 2.3.4, the release line upstream supports until 2028 (its RELEASES.md), for the
// host suites: no Debian suite packages it, so it comes as the archive beside the checkout
// (<repo>/../shared/containerd/, its README gives the sums), checked and unpacked once into
// ~/.cache/skiff/containerd/v2.3.4. See docs/containerd-testing.md, "containerd 2.3".
const { createHash } = require('node:crypto');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const VERSION = 'v2.3.4';
const ARCHIVE_NAME = `containerd-${VERSION}-linux-amd64.tar.xz`;
/** The sums published beside the archive (its README): the archive, and each binary it holds. */
const SHA256 = {
  archive: '8ac53019bab74edb6c2d90a011079efc03fda133be23b603ce17e4f7ff0d3ac4',
  containerd: 'e33588e21b3cfdf40a52a286f0d87ebdba31acbea1fef303d87687a5f26c801e',
  ctr: 'c854f38b969f196ee81a5dd28654444d617f53d4980d290e7186d7df9108402e',
  'containerd-shim-runc-v2': '43f085de9a883ac06723cc0c62680c02f77fb168c6aec9b86b97811e450c1a3a',
};
const BINARIES = ['containerd', 'ctr', 'containerd-shim-runc-v2'];

/** Where the archive is looked for: SKIFF_CONTAINERD_LTS_ARCHIVE, else beside the checkout. */
function archivePath() {
  return process.env.SKIFF_CONTAINERD_LTS_ARCHIVE || path.join(__dirname, '../../../shared/containerd', ARCHIVE_NAME);
}

function cacheDir() {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'skiff/containerd', VERSION);
}

const sha256 = (file) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** The unpacked bin dir when each binary in it has its sum; undefined otherwise. */
function checkedBinDir(bin) {
  for (const name of BINARIES) {
    const file = path.join(bin, name);
    if (!fs.existsSync(file) || sha256(file) !== SHA256[name]) return undefined;
  }
  return bin;
}

/**
 * The bin dir of containerd 2.3.4 (containerd, ctr, containerd-shim-runc-v2), unpacked from the
 * archive after its sum was checked: { bin } or { missing: one line saying why not }. The unpack
 * goes to a directory of its own and is renamed into place, so a parallel suite never sees half.
 */
function ltsContainerd() {
  const dir = cacheDir();
  const bin = path.join(dir, `containerd-${VERSION}`, 'bin');
  if (checkedBinDir(bin) !== undefined) return { bin };
  const archive = archivePath();
  if (!fs.existsSync(archive)) return { missing: `containerd ${VERSION} is not here (no ${archive})` };
  const sum = sha256(archive);
  if (sum !== SHA256.archive)
    return { missing: `${archive} is not containerd ${VERSION}'s archive (sha256 ${sum}, not ${SHA256.archive})` };
  fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  const temp = fs.mkdtempSync(`${dir}.unpack-`);
  try {
    execFileSync('tar', ['-xJf', archive, '-C', temp], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (checkedBinDir(path.join(temp, `containerd-${VERSION}`, 'bin')) === undefined)
      return { missing: `${archive} unpacked into binaries whose sums are not the README's` };
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(temp, dir);
  } catch (err) {
    if (checkedBinDir(bin) !== undefined) return { bin }; // a parallel suite unpacked it first
    return { missing: `cannot unpack ${archive} (${String(err.message).split('\n')[0]})` };
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
  return { bin };
}

/** Whether the archive is absent here (a clone without `shared/` beside it), rather than wrong. */
function ltsArchiveMissing() {
  return !fs.existsSync(archivePath());
}

module.exports = { ltsContainerd, ltsArchiveMissing, LTS_VERSION: VERSION, LTS_SHA256: SHA256, LTS_BINARIES: BINARIES };

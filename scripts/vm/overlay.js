'use strict';
// Binaries laid over an image's Debian packages from an archive beside the checkout (the `lts`
// image: upstream containerd's over Debian's, docs/vm.md). The archive is checked against the
// sha256 its image pins before every use, unpacked on the host (a minimal guest has no xz), and
// each binary checked again before it is copied over the package's file. The package's other
// files (its systemd unit, its config) stay.
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { run } = require('./commands');

/** Where overlay archives are found: `shared/` beside the repository's root (CI's clone has it too). */
const SHARED = path.join(__dirname, '../../..', 'shared');

function sha256(file) {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** The archive's path on this machine. */
function archivePath(overlay) {
  return path.join(SHARED, overlay.archive);
}

/** Whether the archive is absent here (a clone without `shared/` beside it). */
function archiveMissing(overlay) {
  return !fs.existsSync(archivePath(overlay));
}

/** Why the overlay cannot be used here, as one line; undefined when it can. */
function overlayProblem(overlay) {
  const file = archivePath(overlay);
  if (archiveMissing(overlay)) return `${file} is not there`;
  const actual = sha256(file);
  if (actual !== overlay.sha256) return `${file} has sha256 ${actual}, not the ${overlay.sha256} the image pins`;
  return undefined;
}

/** Unpacks the archive into `work` and copies each of its files over the tree's (mode 0755). */
async function applyOverlay(overlay, tree, work) {
  const problem = overlayProblem(overlay);
  if (problem !== undefined) throw new Error(problem);
  const unpacked = path.join(work, 'overlay');
  fs.mkdirSync(unpacked);
  await run('tar', ['-xJf', archivePath(overlay), '-C', unpacked]);
  for (const [target, { from, sha256: pinned }] of Object.entries(overlay.files)) {
    const source = path.join(unpacked, from);
    const actual = fs.existsSync(source) ? sha256(source) : 'nothing (missing)';
    if (actual !== pinned) throw new Error(`${overlay.archive}: ${from} has sha256 ${actual}, not ${pinned}`);
    fs.copyFileSync(source, path.join(tree, target));
    fs.chmodSync(path.join(tree, target), 0o755);
  }
  fs.rmSync(unpacked, { recursive: true, force: true });
}

module.exports = { applyOverlay, archiveMissing, overlayProblem };

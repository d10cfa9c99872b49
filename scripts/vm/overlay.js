'use strict';
// Upstream containerd's binaries laid over an image's Debian packages (the `lts` image,
// docs/vm.md): taken from the host's checked, unpacked copy of the archive
// (scripts/containerd/lts.js, the same the host suites use; a minimal guest has no xz) and
// copied over the package's files. The package's other files (its systemd unit, its config) stay.
const fs = require('node:fs');
const path = require('node:path');
const { ltsArchiveMissing, ltsContainerd } = require('../containerd/lts');

/** Why the overlay cannot be used here, as one line; undefined when it can. */
function overlayProblem() {
  return ltsContainerd().missing;
}

/** Copies each of the overlay's binaries over the tree's file of the same role (mode 0755). */
function applyOverlay(overlay, tree) {
  const { bin, missing } = ltsContainerd();
  if (missing !== undefined) throw new Error(missing);
  for (const [target, name] of Object.entries(overlay.files)) {
    fs.copyFileSync(path.join(bin, name), path.join(tree, target));
    fs.chmodSync(path.join(tree, target), 0o755);
  }
}

module.exports = { applyOverlay, archiveMissing: ltsArchiveMissing, overlayProblem };

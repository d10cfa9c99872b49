'use strict';
// A private containerd with its CRI plugin for the CRI benchmarks (cri.bench.js,
// starvation.bench.js): started, its images imported into k8s.io, CRI ready, a directory for
// pod logs; removed after.
const fs = require('node:fs');
const path = require('node:path');
const { startContainerd, importImages, stopContainerd } = require('./containerd-env');
const { criClient, criReady } = require('../scripts/containerd/cri-client');

/**
 * Runs `use(env, cri, logDir)` against a private containerd with CRI, ready, its images in
 * k8s.io; removes it after. `options`: startContainerd's besides cri (lts, sandboxHandler).
 */
async function withCriContainerd(use, options = {}) {
  const env = await startContainerd({ ...options, cri: true });
  const cri = criClient(env.address);
  try {
    await importImages(env, 'k8s.io');
    await criReady(cri);
    const logDir = path.join(env.paths.dir, 'pod-logs');
    fs.mkdirSync(logDir, { mode: 0o700 });
    return await use(env, cri, logDir);
  } finally {
    cri.close();
    await stopContainerd(env);
  }
}

module.exports = { withCriContainerd };

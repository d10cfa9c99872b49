'use strict';
// The soak at full size: 2,000 containers through one skiff serving process under a private
// containerd with the CRI plugin (scripts/containerd/soak.js: `ctr run --rm`, `ctr run -d`
// killed, and a crash-looping CRI container, in turn), its descriptors, threads and RSS
// printed at each 500. Targets: descriptors and threads at the end as at 500; RSS at the end
// within 5 MiB of RSS at 500 (issue 39; docs/reliability.md). `npm run bench -- soak` runs it alone;
// SKIFF_SOAK_CONTAINERS=<n> runs fewer.
// Needs root, containerd, runc and busybox-static; says so and returns otherwise.
const path = require('node:path');
const { missing, startContainerd, importImages, stopContainerd } = require('./containerd-env');
const { criClient, criReady } = require('../scripts/containerd/cri-client');
const { soak, describeSample } = require('../scripts/containerd/soak');
const { podKeeperPids } = require('../scripts/containerd/runtime-processes');

const CONTAINERS = Number(process.env.SKIFF_SOAK_CONTAINERS ?? 2000);
const EVERY = 500;
const BASE = 500;
const RSS_SLACK_MIB = 5;

async function run() {
  const why = missing();
  if (why !== undefined) {
    console.log(`soak: skipped, ${why}`);
    return;
  }
  const env = await startContainerd({ cri: true });
  let cri;
  try {
    await importImages(env, 'k8s.io');
    cri = criClient(env.address);
    await criReady(cri);
    const started = Date.now();
    const { samples, servingPids } = await soak({
      env,
      cri,
      logDir: path.join(env.paths.dir, 'pod-logs'),
      containers: CONTAINERS,
      every: Math.min(EVERY, CONTAINERS),
      onSample: (s) => console.log(describeSample(s)),
    });
    const seconds = (Date.now() - started) / 1000;
    const base = samples.find((s) => s.containers === Math.min(BASE, CONTAINERS));
    const last = samples[samples.length - 1];
    const flat = last.fds === base.fds && last.threads === base.threads;
    const growth = last.rssMiB - base.rssMiB;
    console.log(
      `${CONTAINERS} containers in ${seconds.toFixed(0)} s through ${servingPids.length} serving process(es): ` +
        `fds ${base.fds} -> ${last.fds}, threads ${base.threads} -> ${last.threads} (${flat ? 'flat' : 'NOT flat'}), ` +
        `RSS ${base.rssMiB.toFixed(1)} -> ${last.rssMiB.toFixed(1)} MiB (${growth >= 0 ? '+' : ''}${growth.toFixed(1)}, ` +
        `target <= +${RSS_SLACK_MIB})  ${flat && growth <= RSS_SLACK_MIB && servingPids.length === 1 ? 'PASS' : 'MISS'}`,
    );
    // Every ctr container had a pod keeper of its own, gone with its container: the soak pod's is left.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const keepers = podKeeperPids(env.address).length;
    console.log(`pod keepers left after the soak: ${keepers} (the soak pod's: 1)  ${keepers === 1 ? 'PASS' : 'MISS'}`);
  } finally {
    cri?.close();
    await stopContainerd(env);
  }
}

module.exports = { run };

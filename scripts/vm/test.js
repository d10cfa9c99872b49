#!/usr/bin/env node
'use strict';
// `npm run test:vm`: the guest suites (test/vm/*.test.js, node's test runner) in each image of
// the VM bed, against that guest's containerd with skiff installed from this checkout's package.
// The checkout is shared read-only... as /mnt/src; the package is packed once for every image.
//
// Without qemu or mmdebstrap the suites are left out with one line and exit 0, unless
// SKIFF_VM_TESTS=1 (CI), which makes that a failure. The images are CI's (trixie, lts), lts left
// out with one line where its containerd archive is missing (a failure under SKIFF_VM_TESTS=1);
// SKIFF_VM_IMAGES picks others (sid), SKIFF_VM_SUITES suites (checkpoint,userns). The images
// run side by side.
const fs = require('node:fs');
const path = require('node:path');
const { Writable } = require('node:stream');
const { missingTools } = require('./commands');
const { defaultImages, imageProblem } = require('./images');
const { packSkiff, ROOT } = require('./pack');
const { vm } = require('./run');

const log = (line) => process.stderr.write(`test:vm: ${line}\n`);

/** test/vm/*.test.js, or those SKIFF_VM_SUITES names (`checkpoint,userns`), as the guest sees them. */
function suites() {
  const dir = path.join(ROOT, 'test', 'vm');
  const wanted = (process.env.SKIFF_VM_SUITES ?? '').split(',').filter(Boolean);
  const all = fs.readdirSync(dir).filter((f) => f.endsWith('.test.js'));
  const unknown = wanted.filter((name) => !all.includes(`${name}.test.js`));
  if (unknown.length > 0) throw new Error(`SKIFF_VM_SUITES names no suite ${unknown.join(', ')} of test/vm/`);
  return all
    .filter((f) => wanted.length === 0 || wanted.includes(f.slice(0, -'.test.js'.length)))
    .sort()
    .map((f) => `/mnt/src/test/vm/${f}`);
}

/** A writable that writes whole lines to `out`, each starting with `tag`. */
function tagged(out, tag) {
  let partial = '';
  return new Writable({
    write(chunk, _encoding, done) {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      if (lines.length > 0) out.write(lines.map((l) => `${tag}${l}\n`).join(''));
      done();
    },
    final(done) {
      if (partial !== '') out.write(`${tag}${partial}\n`);
      done();
    },
  });
}

async function main() {
  const problem = missingTools();
  if (problem !== undefined) {
    if (process.env.SKIFF_VM_TESTS === '1') throw new Error(`SKIFF_VM_TESTS=1 but ${problem}`);
    log(`VM suites left out: ${problem}`);
    return 0;
  }
  const named = (process.env.SKIFF_VM_IMAGES ?? '').split(',').filter(Boolean);
  const images = named.length > 0 ? named : defaultImages(log, process.env.SKIFF_VM_TESTS === '1');
  // Before anything boots: an image named that cannot be had here fails the run at once.
  const unusable = named.map(imageProblem).find((p) => p !== undefined);
  if (unusable !== undefined) throw new Error(unusable);
  const work = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'skiff-vm-test-'));
  const results = [];
  try {
    const tarball = await packSkiff(work, log);
    // Side by side, each guest on a core of its own (one TCG thread each: docs/vm.md), their
    // lines told apart by the image's name: the run takes the slowest image's time, not the sum.
    const runImage = async (image) => {
      const started = Date.now();
      const tag = images.length > 1 ? `[${image}] ` : '';
      log(`${image}: ${suites().length} suites`);
      const status = await vm({
        image,
        tarball,
        shares: [{ dir: ROOT, tag: 'src' }],
        command: ['node', '--test', '--test-reporter=spec', '--test-concurrency=1', ...suites()],
        stdout: tagged(process.stdout, tag),
        stderr: tagged(process.stderr, tag),
        say: (line) => process.stderr.write(`vm: ${tag}${line}\n`),
      });
      const s = Math.round((Date.now() - started) / 1000);
      log(`${image}: ${status === 0 ? 'passed' : `failed (exit ${status})`} in ${s} s`);
      return { image, status, s };
    };
    results.push(...(await Promise.all(images.map(runImage))));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const failed = results.filter((r) => r.status !== 0);
  log(results.map((r) => `${r.image} ${r.status === 0 ? 'passed' : 'FAILED'} (${r.s} s)`).join(', '));
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(err.message);
    process.exit(1);
  },
);

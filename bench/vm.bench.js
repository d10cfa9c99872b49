'use strict';
// The containerd and CRI figures on the nodes people run today: bench/vm/guest.js in each
// image of the VM bed (docs/vm.md), skiff beside that guest's containerd runc shim:
//  - the node's first pod and first `ctr run` in k8s.io, skiff's unit up (targets <= 1.0x), each
//    handler's on a boot where it goes first (two boots per image);
//  - `ctr run --rm ... true`, median (target <= 1.0x), and a fresh namespace's first, beside;
//  - CRI pod start, median (target <= 1.0x), and the first pod, beside;
//  - ten pods at once with a pod of each handler running, wall time (target <= 1.0x), and
//    skiff's ten on a serving process that has served none (target <= 1.0x runc's median);
//  - memory of 20 pods x 2 containers, RSS of the runtime's processes (target <= 0.4x);
//  - pods at once under busy loops, States probed meanwhile: skiff's slowest State within
//    max(2 s, 1.5x the runc shim's), no pod lost (bench/starved-pods.js);
//  - SIGKILL of skiff's serving process to an exec served in k8s.io, its standby loaded (<= 1 s).
// Under emulation the times are many times the host's; the ratios count. Without qemu or
// mmdebstrap it says so and returns. The images are CI's (trixie, lts); SKIFF_VM_IMAGES picks others.
const { missingTools } = require('../scripts/vm/commands');
const { defaultImages } = require('../scripts/vm/images');
const { vm } = require('../scripts/vm/run');
const { report } = require('./stats');
const { starvationBound, starvationLines } = require('./starved-pods');
const path = require('node:path');
const { Writable } = require('node:stream');

const ROOT = path.join(__dirname, '..');
const ms = (value) => `${value.toFixed(0)} ms`;

/** guest.js in a fresh boot of `image`, with `args` (step names) and `env`: resolves its FIGURES. */
async function runImage(image, args = [], env = []) {
  let out = '';
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      out += chunk;
      process.stdout.write(chunk, done);
    },
  });
  const command = ['env', ...env, 'node', '/mnt/src/bench/vm/guest.js', ...args];
  const status = await vm({ image, shares: [{ dir: ROOT, tag: 'src' }], command, stdout });
  const line = out.split('\n').find((l) => l.startsWith('FIGURES '));
  if (status !== 0 || line === undefined) throw new Error(`the ${image} guest's benchmark failed (exit ${status})`);
  return JSON.parse(line.slice('FIGURES '.length));
}

async function run() {
  const problem = missingTools();
  if (problem !== undefined) {
    console.log(`VM figures left out: ${problem}`);
    return;
  }
  const named = (process.env.SKIFF_VM_IMAGES ?? '').split(',').filter(Boolean);
  const images = named.length > 0 ? named : defaultImages((line) => console.log(`VM figures: ${line}`), false);
  const failed = [];
  for (const image of images) {
    let f;
    let runcFirst;
    try {
      f = await runImage(image);
      // A second boot, the runc shim's pod and ctr run the node's firsts (guest.js firsts()).
      runcFirst = (await runImage(image, ['firsts'], ['SKIFF_BENCH_FIRST=runc'])).firsts;
    } catch (err) {
      // The next image's figures are worth having all the same; the run fails at the end.
      console.log(`--- ${image}: ${err.message} ---`);
      failed.push(image);
      continue;
    }
    console.log(`--- ${image} (containerd ${f.containerd}, emulated) ---`);
    // Each handler's first where it was the node's first (two boots); the second in line beside.
    const skiffFirst = f.firsts;
    report(
      `${image} the node's first pod, skiff's unit up`,
      skiffFirst.pod.skiff / runcFirst.pod.runc,
      `${ms(skiffFirst.pod.skiff)} vs ${ms(runcFirst.pod.runc)}, each the first pod of its boot`,
      '<=',
      1.0,
    );
    console.log(
      `${image} the second pod of a boot (beside): skiff ${ms(runcFirst.pod.skiff)} after runc's, runc ${ms(skiffFirst.pod.runc)} after skiff's`,
    );
    report(
      `${image} the node's first ctr run in k8s.io, skiff's unit up`,
      skiffFirst.run.skiff / runcFirst.run.runc,
      `${ms(skiffFirst.run.skiff)} vs ${ms(runcFirst.run.runc)}, each the first of its boot`,
      '<=',
      1.0,
    );
    console.log(
      `${image} the second ctr run of a boot (beside): skiff ${ms(runcFirst.run.skiff)}, runc ${ms(skiffFirst.run.runc)}`,
    );
    const { runc, skiff } = f.ctrRun;
    report(
      `${image} ctr run --rm, median`,
      skiff.median / runc.median,
      `${ms(skiff.median)} vs ${ms(runc.median)}`,
      '<=',
      1.0,
    );
    console.log(`${image} first ctr run of a fresh namespace (beside): ${ms(skiff.first)} vs ${ms(runc.first)}`);
    const pod = f.podStart;
    report(
      `${image} pod start, median`,
      pod.skiff.median / pod.runc.median,
      `${ms(pod.skiff.median)} vs ${ms(pod.runc.median)}`,
      '<=',
      1.0,
    );
    console.log(`${image} the first pod (beside): ${ms(pod.skiff.first)} vs ${ms(pod.runc.first)}`);
    const once = f.tenAtOnce;
    report(
      `${image} ten pods at once, a pod of each running, median of 3`,
      once.skiff / once.runc,
      `${ms(once.skiff)} vs ${ms(once.runc)}`,
      '<=',
      1.0,
    );
    report(
      `${image} ten pods at once on a serving process that served none, vs runc's median`,
      once.skiffFresh / once.runc,
      `${ms(once.skiffFresh)} vs ${ms(once.runc)}`,
      '<=',
      1.0,
    );
    const mem = f.memory;
    report(
      `${image} memory, 20 pods x 2`,
      mem.skiff.rssMB / mem.runc.rssMB,
      `${mem.skiff.rssMB.toFixed(1)} MB in ${mem.skiff.processes} processes vs ${mem.runc.rssMB.toFixed(1)} MB in ${mem.runc.processes}`,
      '<=',
      0.4,
    );
    for (const line of starvationLines(f.starvation)) console.log(`${image} ${line}`);
    const starved = f.starvation.summary;
    report(
      `${image} slowest State under starvation, skiff vs max(2 s, 1.5x runc's slowest)`,
      starved.skiff.slowest / starvationBound(starved),
      `${ms(starved.skiff.slowest)} vs ${ms(starvationBound(starved))}; pods lost: skiff ${starved.skiff.lost}, runc ${starved.runc.lost}; load: ${f.starvation.load}`,
      '<=',
      1.0,
    );
    // The target (docs/node-daemon.md, "The standby"): a crash costs a call into another pod at most 1 s here.
    report(
      `${image} SIGKILL of the serving process to an exec served (its standby loaded), vs 1 s`,
      f.crash.median / 1000,
      `${ms(f.crash.median)}; one exec ${ms(f.crash.callMs)}; the standby loaded ${ms(f.crash.standbyMs)} after a crash`,
      '<=',
      1.0,
    );
  }
  if (failed.length > 0) throw new Error(`the benchmark failed in ${failed.join(', ')} (its output above)`);
}

module.exports = { run };

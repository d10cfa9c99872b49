'use strict';
// The package a guest installs: `npm pack` of a copy of the checkout as it is now (tracked
// files and new ones git does not ignore), as a release is packed, so that the pack's build
// cannot disturb the checkout. SKIFF_VM_TARBALL names one made already.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { run } = require('./commands');

const ROOT = path.join(__dirname, '../..');

function copyCheckout(dest) {
  const list = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  for (const file of new Set(list.split('\0').filter(Boolean))) {
    if (!fs.existsSync(path.join(ROOT, file))) continue; // deleted, not yet committed
    fs.mkdirSync(path.dirname(path.join(dest, file)), { recursive: true });
    fs.cpSync(path.join(ROOT, file), path.join(dest, file), { verbatimSymlinks: true });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dest, 'node_modules'));
}

/** The tarball's path, packed into `work` unless SKIFF_VM_TARBALL names one. */
async function packSkiff(work, log, env = process.env) {
  if (env.SKIFF_VM_TARBALL) return path.resolve(env.SKIFF_VM_TARBALL);
  const checkout = path.join(work, 'checkout');
  copyCheckout(checkout);
  const started = Date.now();
  const npmEnv = Object.fromEntries(Object.entries(env).filter(([name]) => !/^npm_/i.test(name)));
  const out = await run('npm', ['pack', '--pack-destination', work, '--no-update-notifier'], { cwd: checkout, env: npmEnv });
  fs.rmSync(checkout, { recursive: true, force: true });
  const tgz = path.join(work, out.trim().split('\n').pop());
  log(`packed ${path.basename(tgz)} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return tgz;
}

/**
 * The npm cache a guest installs from, offline (it has no network): the bed's own, under the
 * image cache, filled by an install of the same tarball on the host first, which fetches what
 * is missing (the registry's metadata too, which `npm ci` never asks for).
 */
async function npmCacheFor(tgz, work, cacheRoot, log, env = process.env) {
  const cache = path.join(cacheRoot, 'npm');
  const started = Date.now();
  const npmEnv = Object.fromEntries(Object.entries(env).filter(([name]) => !/^npm_/i.test(name)));
  await run(
    'npm',
    ['install', '-g', '--prefix', path.join(work, 'prefix'), '--cache', cache, '--prefer-offline', '--no-audit', '--no-fund', '--no-update-notifier', tgz],
    { cwd: work, env: npmEnv },
  );
  fs.rmSync(path.join(work, 'prefix'), { recursive: true, force: true });
  log(`npm cache for the guest ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return cache;
}

/** The registry the host's npm asks: the guest's npm must name the same, or the cache's keys do not match. */
function npmRegistry() {
  return execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim();
}

module.exports = { ROOT, npmCacheFor, npmRegistry, packSkiff };

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
  const out = await run('npm', ['pack', '--pack-destination', work, '--no-update-notifier'], {
    cwd: checkout,
    env: npmEnv,
  });
  fs.rmSync(checkout, { recursive: true, force: true });
  const tgz = path.join(work, out.trim().split('\n').pop());
  log(`packed ${path.basename(tgz)} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return tgz;
}

module.exports = { ROOT, packSkiff };

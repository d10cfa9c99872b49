'use strict';
// Pack step (`prepack`): the native parts for every platform the package carries, made by
// prebuildify into prebuilds/<platform>-<arch>/ beside the addon's executables, so that an
// install runs no compiler (docs/install.md). arm64 is cross-compiled with Debian's
// gcc-aarch64-linux-gnu. Each build runs in a copy of the sources, so the checkout's own
// build/ (the source build, which wins when present) is never touched.
//
//   node scripts/prebuild.js [x64|arm64 ...]     (default: both)
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const pkg = require(path.join(root, 'package.json'));

/** The tools per target arch; the host's own compiler when it is that arch. */
const TARGETS = {
  x64: { gnu: 'x86_64-linux-gnu' },
  arm64: { gnu: 'aarch64-linux-gnu' },
};
const EXECUTABLES = ['skiff-gate', 'containerd-shim-skiff-v2'];

function toolchain(arch) {
  if (arch === os.arch()) return { strip: 'strip', env: {} };
  const p = `${TARGETS[arch].gnu}-`;
  return { strip: `${p}strip`, env: { CC: `${p}gcc`, CXX: `${p}g++`, LINK: `${p}gcc`, AR: `${p}ar` } };
}

/** The Node.js headers of the running node when it has them (Debian's and the official builds do). */
function nodeDir() {
  const prefix = path.resolve(process.execPath, '../..');
  return fs.existsSync(path.join(prefix, 'include/node/node_api.h')) ? prefix : process.env.npm_config_nodedir;
}

/** npm's own node-gyp: the one `npm run` puts on PATH, found the same way outside npm. */
function nodeGyp() {
  if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp;
  const npm = path.resolve(process.execPath, '../../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js');
  return fs.existsSync(npm) ? npm : 'node-gyp';
}

function build(arch, work) {
  const src = path.join(work, arch);
  fs.mkdirSync(src, { recursive: true });
  fs.cpSync(path.join(root, 'native'), path.join(src, 'native'), { recursive: true });
  fs.copyFileSync(path.join(root, 'binding.gyp'), path.join(src, 'binding.gyp'));
  fs.writeFileSync(path.join(src, 'package.json'), JSON.stringify({ name: pkg.name, version: pkg.version }));
  const tools = toolchain(arch);
  const env = { ...process.env, ...tools.env };
  const dir = nodeDir();
  if (dir) env.npm_config_nodedir = dir;
  // The addon's file is prebuilds/linux-<arch>/skiff.glibc.node whatever the npm package is called
  // (prebuildify would take the package's name, skiff-cli; node-gyp-build reads only the tags).
  const args = [require.resolve('prebuildify/bin.js'), '--name=skiff', '--napi', '--tag-libc', '--strip'];
  args.push(`--strip-bin=${tools.strip}`);
  args.push(`--arch=${arch}`, `--target=node@${process.versions.node}`);
  args.push(`--node-gyp=${nodeGyp()}`);
  try {
    execFileSync(process.execPath, args, { cwd: src, env, stdio: 'pipe' });
  } catch (err) {
    throw new Error(`prebuildify for linux-${arch} failed:\n${err.stdout}${err.stderr}`);
  }
  // prebuildify takes the addon; the executables it does not know are taken the same way.
  const out = path.join(src, 'prebuilds', `linux-${arch}`);
  for (const name of EXECUTABLES) {
    fs.copyFileSync(path.join(src, 'build/Release', name), path.join(out, name));
    execFileSync(tools.strip, ['--strip-all', path.join(out, name)]);
    fs.chmodSync(path.join(out, name), 0o755);
  }
  return out;
}

function main() {
  const arches = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(TARGETS);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-prebuild-'));
  try {
    const staged = path.join(work, 'prebuilds');
    fs.mkdirSync(staged);
    for (const arch of arches) {
      if (!TARGETS[arch]) throw new Error(`no prebuild target ${arch}: one of ${Object.keys(TARGETS).join(', ')}`);
      fs.renameSync(build(arch, work), path.join(staged, `linux-${arch}`));
    }
    // Swapped in whole, so a reader sees the old set or the new one.
    const dest = path.join(root, 'prebuilds');
    fs.rmSync(`${dest}.tmp`, { recursive: true, force: true });
    fs.rmSync(`${dest}.old`, { recursive: true, force: true });
    fs.cpSync(staged, `${dest}.tmp`, { recursive: true });
    if (fs.existsSync(dest)) fs.renameSync(dest, `${dest}.old`);
    fs.renameSync(`${dest}.tmp`, dest);
    fs.rmSync(`${dest}.old`, { recursive: true, force: true });
    for (const arch of arches)
      process.stdout.write(`prebuilds/linux-${arch}: ${fs.readdirSync(path.join(dest, `linux-${arch}`)).join(' ')}\n`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main();

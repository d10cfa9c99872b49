'use strict';
// How bin/run.js's routes start what they run: the bundles of dist/ with their V8 code caches,
// oclif with the patches skiff's start needs, and `--version`'s report. The containerd daemon
// (bin/containerd-daemon.js) and the build (scripts/code-cache.js, scripts/serve-ttrpc.js)
// load bundles through it too.

const loaded = new Map();

/**
 * Loads a bundle from dist/ (made by scripts/bundle.js) with the V8 code cache written next
 * to it at build time, so start-up skips parsing and compiling it. A cache from another
 * Node.js build is rejected by V8 and the bundle compiles as usual; with `writeCache` (the
 * serving process, which lives as long as the node) a cache for this Node.js is written first
 * (code-cache-writer.js) and taken. Once per process.
 */
function loadBundle(name, { writeCache = false } = {}) {
  if (!loaded.has(name)) loaded.set(name, compile(name, { useCache: true, writeCache }).exports);
  return loaded.get(name);
}

/**
 * The bundle compiled afresh, with the script whose compiled code a cache saves (the build,
 * scripts/code-cache.js; the node, code-cache-writer.js). With `eager`, every function is
 * compiled as it loads, not only those the load runs (V8's --no-lazy, on for this compile
 * alone: the cache's flag hash is then this process's own flags', which V8 checks at a load).
 */
function compileBundle(name, { eager = false } = {}) {
  if (!eager) return compile(name, {});
  const v8 = require('node:v8');
  v8.setFlagsFromString('--no-lazy');
  try {
    return compile(name, {});
  } finally {
    v8.setFlagsFromString('--lazy');
  }
}

function readCache(file) {
  try {
    return require('node:fs').readFileSync(`${file}.cache`);
  } catch {
    return undefined;
  }
}

function compile(name, { useCache = false, writeCache = false }) {
  const fs = require('node:fs');
  const path = require('node:path');
  const { Script } = require('node:vm');
  const file = path.join(__dirname, '..', 'dist', `${name}.bundle.js`);
  // Wrapped as Node wraps a CommonJS module (node:module's wrap(), whose module costs 0.3 ms
  // to load). The bundle requires only packages and builtins, which this file's own require
  // finds as one made for dist/ would.
  const source = `(function (exports, require, module, __filename, __dirname) { ${fs.readFileSync(file, 'utf8')}\n});`;
  let script = new Script(source, { filename: file, cachedData: useCache ? readCache(file) : undefined });
  // Rejected, or none: the first compile (lazy, the top of the bundle) is dropped for one from the new cache.
  if (writeCache && script.cachedDataRejected !== false && require('./code-cache-writer').writeNodeCodeCache(name))
    script = new Script(source, { filename: file, cachedData: readCache(file) });
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext()(module.exports, require, module, file, path.dirname(file));
  return { script, file, exports: module.exports };
}

/** Every command through oclif, the full implementations (bin/run.js's last route). */
function runOclif() {
  require('reflect-metadata');
  // oclif asks the ES module `wsl-utils` on every start whether this is WSL. Importing it
  // costs tens of milliseconds, and its `import process from 'node:process'` makes Node
  // read every property of process, process.stdin included, for the namespace: every
  // command would open stdin. A Linux kernel that is not WSL's answers without it.
  skipWslProbe();
  // skiff runs the compiled JavaScript of linked plugins: oclif would otherwise load the
  // TypeScript compiler on every start to read a linked plugin's tsconfig.json, and
  // ts-node or tsx when the plugin has them (docs/plugins.md).
  require('@oclif/core/settings').settings.enableAutoTranspile = false;
  // Plugins' commands import `skiff-cli/plugin`: they get this skiff (see plugin-host.ts).
  require('../dist/infrastructure/login/plugin-host').sharePackageWithPlugins();
  require('@oclif/core').execute({ dir: __dirname }).catch(require('@oclif/core/handle'));
}

function skipWslProbe() {
  const os = require('node:os');
  if (os.platform() !== 'linux' || /microsoft/i.test(os.release())) return;
  let oclifOs;
  try {
    const { dirname, join } = require('node:path');
    oclifOs = require(join(dirname(require.resolve('@oclif/core/package.json')), 'lib/util/os.js'));
  } catch {
    return;
  }
  if (typeof oclifOs.getPlatform === 'function') oclifOs.getPlatform = async () => 'linux';
}

/**
 * `skiff --version` (and -v) says which native parts and which containerd shim go with this
 * skiff too (docs/install.md): oclif's line, then one line for each.
 */
function printVersion() {
  process.stdout.write(require('../dist/adapters/shim/inbound/cli/version-report').versionReport());
}

module.exports = { loadBundle, compileBundle, runOclif, printVersion };

#!/usr/bin/env node
'use strict';

// Required as a module (bin/containerd-daemon.js, scripts/code-cache.js), this file only gives
// its bundle loader, which lives here because one more module to load costs `auth token`
// about 1 ms of the 5 ms it may spend over Node's own start (docs/performance.md, "The login flow").
if (require.main !== module) {
  module.exports = { loadBundle, compileBundle };
  return;
}

const argv = process.argv.slice(2);

// `skiff auth token`, `auth kube-credential` (kubectl), `auth git-credential` (git, for
// every fetch and push) and `auth status` are called often: the same treatment with the
// auth bundle (no oclif; HTTP code only when a refresh is due). All but status are answered
// before that, when the cache holds what they need, by a read path: a smaller bundle still,
// with no container (src/infrastructure/entry/auth-read.ts, git-credential-read.ts).
const FAST_AUTH = ['token', 'kube-credential', 'git-credential', 'status'];
const READ_PATHS = { token: 'auth-read', 'kube-credential': 'auth-read', 'git-credential': 'git-credential-read' };
if (argv[0] === 'auth' && FAST_AUTH.includes(argv[1])) {
  // git-credential reads git's request (through process.stdin on a non-blocking pipe), so
  // stdin is guarded first; `auth token` never reads it and skips loading the guard's module.
  if (argv[1] === 'git-credential') require('./stdin').guardStdin();
  const readPath = READ_PATHS[argv[1]];
  const fromCache =
    readPath === undefined ? Promise.resolve({}) : loadBundle(readPath).answerFromCache(argv.slice(1), { exit: true });
  fromCache.then((handOver) => {
    if (handOver === undefined) return; // answered
    require('./stdin').guardStdin();
    const auth = loadBundle('auth');
    const call = auth.parseAuthArgs(argv.slice(1));
    if (call !== undefined) auth.runAuth(call, { exit: true, gitRequest: handOver.gitRequest });
    else runOclif();
  });
  return;
}

// process.stdin only when a command reads it, and on a pipe without touching the flags of
// the description skiff shares with the pipe's other holders (see stdin.js).
require('./stdin').guardStdin();

// `skiff shim serve` is started once per container by a runtime: it skips oclif, binds
// its socket with a small bundle, then loads the pre-compiled serving bundle while the
// first connections wait in the socket (see docs/performance.md). Anything the fast
// path does not understand (help, bad flags) falls through to oclif.
if (argv[0] === 'shim' && argv[1] === 'serve') {
  const first = loadBundle('shim-listen');
  const config = first.parseServeArgs(argv.slice(2));
  if (config !== undefined) {
    first.listenFirst(config).then((socket) => {
      try {
        loadBundle('shim').runServe(config, socket);
      } catch (err) {
        first.failServe(err, socket);
      }
    }, first.failServe);
    return;
  }
}

// `skiff --version` (and -v) says which native parts and which containerd shim go with this
// skiff too (docs/install.md): oclif's line, then one line for each.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  process.stdout.write(require('../dist/adapters/shim/inbound/cli/version-report').versionReport());
  return;
}

runOclif();

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
 * Loads a bundle from dist/ (made by scripts/bundle.js) with the V8 code cache written next
 * to it at build time, so start-up skips parsing and compiling it. A cache from another
 * Node.js build is rejected by V8 and the bundle compiles as usual.
 */
function loadBundle(name) {
  return compile(name, true).exports;
}

/** Build step (scripts/code-cache.js): the bundle compiled afresh, with the script whose compiled code it saves. */
function compileBundle(name) {
  return compile(name, false);
}

function compile(name, useCache) {
  const fs = require('node:fs');
  const path = require('node:path');
  const { Script } = require('node:vm');
  const file = path.join(__dirname, '..', 'dist', `${name}.bundle.js`);
  let cachedData;
  if (useCache) {
    try {
      cachedData = fs.readFileSync(`${file}.cache`);
    } catch {
      cachedData = undefined;
    }
  }
  // Wrapped as Node wraps a CommonJS module (node:module's wrap(), whose module costs 0.3 ms
  // to load). The bundle requires only packages and builtins, which this file's own require
  // finds as one made for dist/ would.
  const source = `(function (exports, require, module, __filename, __dirname) { ${fs.readFileSync(file, 'utf8')}\n});`;
  const script = new Script(source, { filename: file, cachedData });
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext()(module.exports, require, module, file, path.dirname(file));
  return { script, file, exports: module.exports };
}

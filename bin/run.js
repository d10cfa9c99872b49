#!/usr/bin/env node
'use strict';

const argv = process.argv.slice(2);

// process.stdin only when a command reads it, and on a pipe without touching the flags of
// the description skiff shares with the pipe's other holders (see stdin.js).
require('./stdin').guardStdin();

// `skiff shim serve` is started once per container by a runtime: it skips oclif, binds
// its socket with a small bundle, then loads the pre-compiled serving bundle while the
// first connections wait in the socket (see docs/performance.md). Anything the fast
// path does not understand (help, bad flags) falls through to oclif.
if (argv[0] === 'shim' && argv[1] === 'serve') {
  const { loadBundle } = require('./bundle-loader');
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

// `skiff auth token`, `auth kube-credential` (kubectl), `auth git-credential` (git, for
// every fetch and push) and `auth status` are called often: the same treatment with the
// auth bundle (no oclif; HTTP code only when a refresh is due).
const FAST_AUTH = ['token', 'kube-credential', 'git-credential', 'status'];
if (argv[0] === 'auth' && FAST_AUTH.includes(argv[1])) {
  const auth = require('./bundle-loader').loadBundle('auth');
  const call = auth.parseAuthArgs(argv.slice(1));
  if (call !== undefined) {
    auth.runAuth(call, { exit: true });
    return;
  }
}

// `skiff --version` (and -v) says which native parts and which containerd shim go with this
// skiff too (docs/install.md): oclif's line, then one line for each.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  process.stdout.write(require('../dist/adapters/shim/inbound/cli/version-report').versionReport());
  return;
}

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

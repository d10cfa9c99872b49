#!/usr/bin/env node
'use strict';

const argv = process.argv.slice(2);

// `skiff shim serve` is started once per container by a runtime: it skips oclif and
// loads one pre-compiled bundle (docs/performance.md, "Start-up time"). Anything the fast
// path does not understand (help, bad flags) falls through to oclif.
if (argv[0] === 'shim' && argv[1] === 'serve') {
  const shim = require('./bundle-loader').loadBundle('shim');
  const config = shim.parseServeArgs(argv.slice(2));
  if (config !== undefined) {
    shim.runServe(config);
    return;
  }
}

// `skiff auth token` and `skiff auth status` are called by scripts, often: the same
// treatment with the auth bundle (no oclif; HTTP code only when a refresh is due).
if (argv[0] === 'auth' && (argv[1] === 'token' || argv[1] === 'status')) {
  const auth = require('./bundle-loader').loadBundle('auth');
  const call = auth.parseAuthArgs(argv.slice(1));
  if (call !== undefined) {
    auth.runAuth(call);
    return;
  }
}

require('reflect-metadata');
require('@oclif/core').execute({ dir: __dirname }).catch(require('@oclif/core/handle'));

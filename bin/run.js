#!/usr/bin/env node
'use strict';

const argv = process.argv.slice(2);

// `skiff shim serve` is started once per container by a runtime: it skips oclif and
// loads one pre-compiled bundle (see README, "Start-up time"). Anything the fast
// path does not understand (help, bad flags) falls through to oclif.
if (argv[0] === 'shim' && argv[1] === 'serve') {
  const shim = require('./bundle-loader').loadBundle('shim');
  const config = shim.parseServeArgs(argv.slice(2));
  if (config !== undefined) {
    shim.runServe(config);
    return;
  }
}

require('reflect-metadata');
require('@oclif/core')
  .execute({ dir: __dirname })
  .catch(require('@oclif/core/handle'));

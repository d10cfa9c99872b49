#!/usr/bin/env node
'use strict';
// The serving process of one group of containerd containers, started by
// containerd-shim-skiff-v2 `start` with its listening socket as fd 3 (docs/containerd.md).
// Its stderr is the bundle's log, which containerd copies to its own: a Node.js too old for
// skiff says so there in one line (written for any Node, before anything of skiff loads).
var engines = require('../package.json').engines.node;
var needed = Number(/\d+/.exec(engines)[0]);
if (Number(process.versions.node.split('.')[0]) < needed) {
  process.stderr.write(
    'skiff: ' +
      process.execPath +
      ' is Node.js ' +
      process.versions.node +
      ' and skiff needs ' +
      engines +
      ': set SKIFF_NODE=/path/to/node (Node.js ' +
      needed +
      " or newer) in containerd's environment (docs/install.md)\n",
  );
  process.exit(1);
}
require('./loader.js').loadBundle('containerd', { writeCache: true }).runGroupServer(process.argv.slice(2));

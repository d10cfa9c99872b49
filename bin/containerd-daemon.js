#!/usr/bin/env node
'use strict';
// The serving process of one group of containerd containers, started by
// containerd-shim-skiff-v2 `start` with its listening socket as fd 3 (docs/containerd.md).
require('./bundle-loader').loadBundle('containerd').runGroupServer(process.argv.slice(2));

'use strict';
// The bundle loader of bin/run.js (loadBundle, compileBundle), for the other entries and the
// build: bin/containerd-daemon.js, scripts/code-cache.js, scripts/serve-ttrpc.js. It lives
// in run.js so that `skiff auth token` loads one file of skiff's before its bundle.
module.exports = require('./run.js');

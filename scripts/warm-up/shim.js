'use strict';
// The warm-up of dist/shim.bundle.js (scripts/code-cache.js): one task of /bin/true over each
// transport, run by the bundle's warmUp (src/infrastructure/shim/main.ts), which needs the
// serving code inside the bundle.
module.exports = (shim) => shim.warmUp();

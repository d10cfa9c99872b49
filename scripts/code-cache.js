'use strict';
// Build step, in a process of its own (`node scripts/code-cache.js <name> [--eager]`, started by
// scripts/bundle.js with its output discarded): compiles dist/<name>.bundle.js, runs the
// bundle's hot path once with scripts/warm-up/<name>.js when there is one (so the functions
// that path calls are compiled too, not only the module tops), and writes what V8 compiled
// next to the bundle for bin/loader.js's loadBundle (docs/performance.md).
const fs = require('node:fs');
const path = require('node:path');
const { compileBundle } = require('../bin/loader');

/**
 * With `--eager`: every function of the bundle compiled as it is loaded, not only those the
 * load runs (V8's --no-lazy, on for the compile alone: the cache's flag hash is then the
 * serving flags' own, which V8 checks when the serving process loads it).
 */
function compileEagerly(name) {
  const v8 = require('node:v8');
  v8.setFlagsFromString('--no-lazy');
  try {
    return compileBundle(name);
  } finally {
    v8.setFlagsFromString('--lazy');
  }
}

async function main() {
  const name = process.argv[2];
  const {
    script,
    file,
    exports: bundle,
  } = process.argv.includes('--eager') ? compileEagerly(name) : compileBundle(name);
  const warmUp = path.join(__dirname, 'warm-up', `${name}.js`);
  if (fs.existsSync(warmUp)) await require(warmUp)(bundle);
  fs.writeFileSync(`${file}.cache`, script.createCachedData());
  // A warm-up that ran a failing call on purpose left its exit code behind.
  process.exitCode = 0;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

'use strict';
// Build step, in a process of its own (`node scripts/code-cache.js <name> [--eager]`, started by
// scripts/bundle.js with its output discarded): compiles dist/<name>.bundle.js (with `--eager`
// every function of it: bin/loader.js's compileBundle), runs the bundle's hot path once with
// scripts/warm-up/<name>.js when there is one (so the functions that path calls are compiled
// too, not only the module tops), and writes what V8 compiled next to the bundle for
// bin/loader.js's loadBundle (bin/code-cache-writer.js; docs/performance.md).
const fs = require('node:fs');
const path = require('node:path');
const { compileBundle } = require('../bin/loader');
const { writeCodeCache } = require('../bin/code-cache-writer');

async function main() {
  const name = process.argv[2];
  const { script, file, exports: bundle } = compileBundle(name, { eager: process.argv.includes('--eager') });
  const warmUp = path.join(__dirname, 'warm-up', `${name}.js`);
  if (fs.existsSync(warmUp)) await require(warmUp)(bundle);
  writeCodeCache(script, file);
  // A warm-up that ran a failing call on purpose left its exit code behind.
  process.exitCode = 0;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

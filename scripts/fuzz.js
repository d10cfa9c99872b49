'use strict';
// `npm run fuzz`: every fuzzer, longer than `npm test` runs them. The C libFuzzer fuzzers
// (test/native/fuzz.test.ts) SKIFF_FUZZ_SECONDS each (60 by default), keeping the new inputs
// they find in build/fuzz/<name>/corpus/ and any crashing input in build/fuzz/<name>/ (the
// failure names it, with the line that replays it); then the TypeScript property tests (those
// using test/support/property.ts) with SKIFF_PROPERTY_RUNS inputs (20,000 by default), at most
// SKIFF_PROPERTY_SECONDS (120) per property.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const env = {
  ...process.env,
  SKIFF_FUZZ_SECONDS: process.env.SKIFF_FUZZ_SECONDS ?? '60',
  SKIFF_PROPERTY_RUNS: process.env.SKIFF_PROPERTY_RUNS ?? '20000',
  SKIFF_PROPERTY_SECONDS: process.env.SKIFF_PROPERTY_SECONDS ?? '120',
};

/** The test files whose properties take their budget from test/support/property.ts. */
function propertyTests() {
  return fs
    .readdirSync(path.join(ROOT, 'test'), { recursive: true })
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => fs.readFileSync(path.join(ROOT, 'test', f), 'utf8').includes("support/property'"))
    .map((f) => path.join('test', f))
    .sort();
}

function jest(files, timeoutSeconds) {
  const jestBin = path.join(ROOT, 'node_modules/jest/bin/jest.js');
  const args = [jestBin, '--runInBand', `--testTimeout=${timeoutSeconds * 1000}`, ...files];
  return spawnSync(process.execPath, args, { cwd: ROOT, env, stdio: 'inherit' }).status === 0;
}

const c = jest(['test/native/fuzz.test.ts'], Number(env.SKIFF_FUZZ_SECONDS) + 120);
const ts = jest(propertyTests(), 3600);
if (!c || !ts) {
  process.stderr.write(
    `fuzz: ${[!c && 'a C fuzzer', !ts && 'a property test'].filter(Boolean).join(' and ')} failed (above)\n`,
  );
  process.exit(1);
}

'use strict';
// `npm run bench`: runs every bench/*.bench.js in turn (each prints its own table of
// figures measured side by side in one run, and the ratio against its target).
// `npm run bench -- shim` runs only the files whose name contains "shim".
const fs = require('node:fs');
const path = require('node:path');

async function main() {
  const filter = process.argv[2] ?? '';
  const files = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.js') && f.includes(filter))
    .sort();
  for (const file of files) {
    console.log(`\n=== ${file} ===`);
    await require(path.join(__dirname, file)).run();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

'use strict';
// Pack steps: the package.json that goes into the tarball has no `prepare` script. In a checkout
// `prepare` builds the C parts and the TypeScript at `npm ci`; in the package everything is built
// already, and npm lists a `prepare` of a tarball among the install scripts to allow
// (`npm install -g ./skiff-cli-*.tgz`), so the package must carry none (docs/install.md).
//
//   node scripts/pack-manifest.js strip      (prepack: keeps the checkout's as package.json.pack-backup)
//   node scripts/pack-manifest.js restore    (postpack, and before a strip left behind by a failed pack)
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package.json');
const backup = `${file}.pack-backup`;

function restore() {
  if (fs.existsSync(backup)) fs.renameSync(backup, file);
}

function strip() {
  restore();
  const text = fs.readFileSync(file, 'utf8');
  const manifest = JSON.parse(text);
  delete manifest.scripts.prepare;
  fs.writeFileSync(backup, text);
  fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

const action = process.argv[2];
if (action === 'strip') strip();
else if (action === 'restore') restore();
else {
  console.error('usage: node scripts/pack-manifest.js strip|restore');
  process.exit(2);
}

'use strict';
// `oclif manifest` lists commands in the order its loader found them, which varies from
// build to build; sorted, a build leaves the committed manifest unchanged.
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'oclif.manifest.json');
const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
manifest.commands = Object.fromEntries(
  Object.keys(manifest.commands)
    .sort()
    .map((id) => [id, manifest.commands[id]]),
);
fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);

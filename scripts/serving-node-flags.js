'use strict';
// The Node.js flags the serving process runs with, as native/common/serving-argv.c lists them
// (the quoted strings between its node-flags markers). V8 rejects a code cache made under
// other V8 flags: scripts/bundle.js writes the containerd bundle's cache under these, and a
// test checks that the cache is taken under them.
const fs = require('node:fs');
const path = require('node:path');

function servingNodeFlags() {
  const source = fs.readFileSync(path.join(__dirname, '../native/common/serving-argv.c'), 'utf8');
  const list = /node-flags:begin \*\/([\s\S]*?)\/\* node-flags:end/.exec(source);
  if (list === null) throw new Error('native/common/serving-argv.c has no node-flags:begin ... node-flags:end list');
  return [...list[1].replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/"([^"]*)"/g)].map((m) => m[1]);
}

module.exports = { servingNodeFlags };

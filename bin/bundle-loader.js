'use strict';
// Loads a bundle from dist/ (made by scripts/bundle.js) with the V8 code cache
// written next to it at build time, so start-up skips parsing and compiling it.
// A cache from another Node.js build is rejected by V8 and the bundle compiles as usual.
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire, wrap } = require('node:module');

function compile(name, useCache) {
  const file = path.join(__dirname, '..', 'dist', `${name}.bundle.js`);
  let cachedData;
  if (useCache) {
    try {
      cachedData = fs.readFileSync(`${file}.cache`);
    } catch {
      cachedData = undefined;
    }
  }
  const script = new vm.Script(wrap(fs.readFileSync(file, 'utf8')), { filename: file, cachedData });
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file));
  return { script, file, exports: module.exports };
}

exports.loadBundle = (name) => compile(name, true).exports;

/** Build step (scripts/code-cache.js): the bundle compiled afresh, with the script whose compiled code it saves. */
exports.compileBundle = (name) => compile(name, false);

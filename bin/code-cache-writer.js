'use strict';
// The V8 code cache of a bundle, written next to it (dist/<name>.bundle.js.cache): by the
// build (scripts/code-cache.js), and on the node by the serving process when the cache the
// package brought was made by another Node.js, which V8 rejects (docs/performance.md, "The
// code cache on the node"). Without it every function of the request path compiles as the
// node's first Create runs it: under the VM bed's emulation that was most of the first pod's
// 1.8x. Run as `node <the serving process's flags> code-cache-writer.js <name>`: V8 takes a
// cache only under the flags that wrote it.
const fs = require('node:fs');
const path = require('node:path');

/** How long a node's first serving process waits for the writer: a Node start and a compile, emulated. */
const WRITE_TIMEOUT_MS = 120_000;

/** Node's options that run code (`-e`, `-r`, ...) take their value along; those are not the writer's. */
const RUNS_CODE = new Set([
  '-e',
  '--eval',
  '-p',
  '--print',
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
]);

/** This process's flags the writer takes, V8's among them, without what would run code in it. */
function v8Flags(execArgv) {
  const flags = [];
  for (let i = 0; i < execArgv.length; i++) {
    const [option] = execArgv[i].split('=');
    if (RUNS_CODE.has(option)) {
      if (!execArgv[i].includes('=')) i++;
    } else flags.push(execArgv[i]);
  }
  return flags;
}

/**
 * Writes what `script` (compiled from `file`) holds as `${file}.cache`, through a file of its
 * own renamed over it: a serving process starting beside this one reads the old cache or the
 * new, never half of one. `wx` creates the temporary file afresh, through no link.
 */
function writeCodeCache(script, file) {
  const temporary = `${file}.cache.${process.pid}.tmp`;
  const fd = fs.openSync(temporary, 'wx', 0o644);
  try {
    fs.writeSync(fd, script.createCachedData());
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(temporary, `${file}.cache`);
  } catch (err) {
    fs.rmSync(temporary, { force: true });
    throw err;
  }
}

/**
 * The node's own cache of bundle `name`, written by a process of this Node.js with this
 * process's flags, every function compiled (eager). Resolves whether it was written; says in
 * one line on stderr (the bundle's log, which containerd copies) what happened, since a node
 * that cannot write its package (read-only, or not root's to write) serves slower at first.
 */
function writeNodeCodeCache(name) {
  const { spawnSync } = require('node:child_process');
  const file = path.join(__dirname, '..', 'dist', `${name}.bundle.js`);
  const written = spawnSync(process.execPath, [...v8Flags(process.execArgv), __filename, name], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: WRITE_TIMEOUT_MS,
  });
  const why = written.error?.message ?? written.stderr.trim().split('\n').pop();
  if (written.status === 0) {
    process.stderr.write(
      `skiff: ${file}.cache was made by another Node.js: written anew for Node.js ${process.version} (docs/performance.md)\n`,
    );
    return true;
  }
  process.stderr.write(
    `skiff: ${file}.cache was made by another Node.js and could not be written for Node.js ${process.version} (${why}): the first calls compile as they run (docs/performance.md)\n`,
  );
  return false;
}

if (require.main === module) {
  try {
    const { script, file } = require('./loader.js').compileBundle(process.argv[2], { eager: true });
    writeCodeCache(script, file);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

module.exports = { v8Flags, writeCodeCache, writeNodeCodeCache };

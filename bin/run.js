#!/usr/bin/env node
'use strict';

/**
 * The routing table: the commands that start without oclif, and what answers them
 * (docs/performance.md). Anything else, and any of these in a form their fast path does not
 * understand (help, other flags, mistakes), goes through oclif, whose commands are the full
 * implementations. Each key is a command of oclif.manifest.json
 * (test/bin/routes.test.ts). bin/loader.js loads what a route names.
 */
const ROUTES = {
  // Called often: by scripts, kubectl (kube-credential) and git, for every fetch and push
  // (git-credential). Answered by a read path (`readPath`: a small bundle with no container,
  // src/infrastructure/entry/auth-read.ts, git-credential-read.ts) when the cache holds what
  // they need, else by the auth bundle (no oclif; HTTP code only when a refresh is due).
  'auth token': { auth: true, readPath: 'auth-read' },
  'auth kube-credential': { auth: true, readPath: 'auth-read' },
  // git's request is read (through process.stdin on a non-blocking pipe), so stdin is guarded
  // first; `auth token` never reads it and skips loading the guard's module.
  'auth git-credential': { auth: true, readPath: 'git-credential-read', readsStdin: true },
  'auth status': { auth: true },
  // Started once per container by a runtime: binds its socket with a small bundle, then loads
  // the pre-compiled serving bundle while the first connections wait in the socket.
  'shim serve': { serve: true },
};

// Required as a module (test/bin/routes.test.ts), this file only gives its table.
if (require.main !== module) {
  module.exports = { ROUTES };
  return;
}

const argv = process.argv.slice(2);
const loader = require('./loader.js');
const name = `${argv[0]} ${argv[1]}`;
const route = argv.length >= 2 && Object.hasOwn(ROUTES, name) ? ROUTES[name] : undefined;

if (route !== undefined && route.auth) {
  if (route.readsStdin) require('./stdin').guardStdin();
  const args = argv.slice(1);
  const tried =
    route.readPath === undefined
      ? Promise.resolve({ unparsed: true })
      : loader.loadBundle(route.readPath).answerFromCache(args, { exit: true });
  tried.then((handOver) => {
    if (handOver === undefined) return; // answered from the cache
    require('./stdin').guardStdin();
    // Parsed once: by the read path, which hands its call over, or here.
    const call = handOver.unparsed ? loader.loadBundle('auth').parseAuthArgs(args) : handOver.call;
    if (call === undefined) loader.runOclif();
    else loader.loadBundle('auth').runAuth(call, { exit: true, gitRequest: handOver.gitRequest });
  });
  return;
}

// process.stdin only when a command reads it, and on a pipe without touching the flags of
// the description skiff shares with the pipe's other holders (see stdin.js).
require('./stdin').guardStdin();

if (route !== undefined && route.serve) {
  const first = loader.loadBundle('shim-listen');
  const config = first.parseServeArgs(argv.slice(2));
  if (config !== undefined) {
    first.listenFirst(config).then((socket) => {
      try {
        loader.loadBundle('shim').runServe(config, socket);
      } catch (err) {
        first.failServe(err, socket);
      }
    }, first.failServe);
    return;
  }
}

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) loader.printVersion();
else loader.runOclif();

'use strict';
// The warm-up of dist/auth.bundle.js (scripts/code-cache.js): `auth token`,
// `auth kube-credential`, `auth status` (every domain, and one), `auth status --json`
// and `auth git-credential get` (its request is this process's standard input,
// scripts/warm-up/auth.stdin, given by scripts/bundle.js), then `store` and `erase` (which
// read the input's end) against a scratch home with a valid cache, and `auth token` for a
// domain not signed in (the error path), each through the bundle's own entry as bin/run.js
// calls it, so the code cache holds the compiled path: YAML parsing, the container, the
// cache read, the answer.
const scratchHome = require('./scratch-home');

module.exports = async (auth) => {
  const home = scratchHome();
  try {
    Object.assign(process.env, home.env);
    const calls = [
      ['token'],
      ['kube-credential'],
      ['status'],
      ['status', '--json'],
      ['status', '--domain', 'warm.test'],
      ['git-credential', 'get'],
      ['git-credential', '--context', 'local', 'store'],
      ['git-credential', 'erase'],
      ['token', '--domain', 'absent.test'],
    ];
    for (const argv of calls) {
      await auth.runAuth(auth.parseAuthArgs(argv));
    }
  } finally {
    home.remove();
  }
};

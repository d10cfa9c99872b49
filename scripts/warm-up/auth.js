'use strict';
// The warm-up of dist/auth.bundle.js (scripts/code-cache.js): `auth token`,
// `auth kube-credential`, `auth status` (every domain, and one), `auth status --json`
// and `auth git-credential get` (its request is this process's standard input,
// scripts/warm-up/auth.stdin, given by scripts/bundle.js), then `store` and `erase` (which
// read the input's end) against a scratch home with a valid cache, and `auth token` for a
// domain not signed in (the error path), each through the bundle's own entry as bin/run.js
// calls it, so the code cache holds the compiled path: YAML parsing, the container, the
// cache read, the answer.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async (auth) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-warm-'));
  try {
    Object.assign(process.env, {
      HOME: home,
      XDG_DATA_HOME: path.join(home, 'data'),
      XDG_CONFIG_HOME: path.join(home, 'config'),
    });
    const authDir = path.join(home, 'data', 'skiff', 'auth');
    fs.mkdirSync(authDir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(path.join(home, 'config', 'skiff'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(
      path.join(home, 'config', 'skiff', 'config.yaml'),
      'current-context: local\ncontexts:\n  - name: local\n    context:\n      domain: warm.test\n',
    );
    const record = {
      access_token: 'a',
      refresh_token: '',
      expires_at: '2099-01-01T00:00:00Z',
      domain: 'warm.test',
      gitea_token: 'g',
    };
    fs.writeFileSync(path.join(authDir, 'warm.test.json'), JSON.stringify(record), { mode: 0o600 });
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
    fs.rmSync(home, { recursive: true, force: true });
  }
};

'use strict';
// The warm-up of dist/auth-read.bundle.js (scripts/code-cache.js): `auth token`, `auth token
// --json` and `auth kube-credential` against a scratch home with a valid cache, through the
// bundle's own entry, so the code cache holds the compiled read path (config.yaml, the cache
// file, the answer).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async (read) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-warm-'));
  try {
    const env = {
      HOME: home,
      XDG_DATA_HOME: path.join(home, 'data'),
      XDG_CONFIG_HOME: path.join(home, 'config'),
      KUBERNETES_EXEC_INFO: JSON.stringify({
        kind: 'ExecCredential',
        apiVersion: 'client.authentication.k8s.io/v1',
        spec: {},
      }),
    };
    const authDir = path.join(home, 'data', 'skiff', 'auth');
    fs.mkdirSync(authDir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(path.join(home, 'config', 'skiff'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(
      path.join(home, 'config', 'skiff', 'config.yaml'),
      'current-context: local\ncontexts:\n  - name: local\n    context:\n      domain: warm.test\n',
    );
    const record = { access_token: 'a', refresh_token: '', expires_at: '2099-01-01T00:00:00Z', domain: 'warm.test' };
    fs.writeFileSync(path.join(authDir, 'warm.test.json'), JSON.stringify(record), { mode: 0o600 });
    for (const argv of [['token'], ['token', '--json'], ['kube-credential']]) {
      if ((await read.cachedAnswer(argv, env)) === undefined)
        throw new Error(`the warm-up of auth ${argv.join(' ')} got no answer`);
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
};

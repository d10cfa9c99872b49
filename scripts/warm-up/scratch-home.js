'use strict';
// The scratch home the auth warm-ups run in (scripts/warm-up/auth.js, auth-read.js): one
// context, `local`, on warm.test, and a valid cache for it.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** The home's environment (HOME and the XDG directories), and a function that removes it. */
module.exports = function scratchHome() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-warm-'));
  const env = { HOME: home, XDG_DATA_HOME: path.join(home, 'data'), XDG_CONFIG_HOME: path.join(home, 'config') };
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
  return { env, remove: () => fs.rmSync(home, { recursive: true, force: true }) };
};

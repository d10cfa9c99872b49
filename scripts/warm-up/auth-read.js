'use strict';
// The warm-up of dist/auth-read.bundle.js (scripts/code-cache.js): `auth token`, `auth token
// --json`, `auth kube-credential` and `auth git-credential get|store` (with a request as git
// writes it) against a scratch home with a valid cache, through the bundle's own entry, so
// the code cache holds the compiled read path (config.yaml, the cache file, the answer).
const scratchHome = require('./scratch-home');

module.exports = async (read) => {
  const home = scratchHome();
  try {
    const env = {
      ...home.env,
      KUBERNETES_EXEC_INFO: JSON.stringify({ kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1' }),
    };
    const gitRequest = 'protocol=https\nhost=src.warm.test\npath=team/app.git\n\n';
    for (const argv of [
      ['token'],
      ['token', '--json'],
      ['kube-credential'],
      ['git-credential', 'get'],
      ['git-credential', '--context', 'local', 'store'],
    ]) {
      if ((await read.cachedAnswer(argv, env, gitRequest)) === undefined)
        throw new Error(`the warm-up of auth ${argv.join(' ')} got no answer`);
    }
  } finally {
    home.remove();
  }
};

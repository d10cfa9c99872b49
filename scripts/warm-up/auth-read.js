'use strict';
// The warm-up of dist/auth-read.bundle.js (scripts/code-cache.js): `auth token`, `auth token
// --json` and `auth kube-credential` against a scratch home with a valid cache, through the
// bundle's own entry, so the code cache holds the compiled read path (config.yaml, the cache
// file, the answer).
const scratchHome = require('./scratch-home');

module.exports = async (read) => {
  const home = scratchHome();
  try {
    const env = {
      ...home.env,
      KUBERNETES_EXEC_INFO: JSON.stringify({ kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1' }),
    };
    for (const argv of [['token'], ['token', '--json'], ['kube-credential']]) {
      if ((await read.cachedAnswer(argv, env)) === undefined)
        throw new Error(`the warm-up of auth ${argv.join(' ')} got no answer`);
    }
  } finally {
    home.remove();
  }
};

'use strict';
// The warm-up of dist/git-credential-read.bundle.js (scripts/code-cache.js): `auth
// git-credential get` and `store`, with a request as git writes it, against a scratch home
// with a valid cache, through the bundle's own entry, so the code cache holds the compiled
// read path (config.yaml, the request, the cache file, the reply).
const scratchHome = require('./scratch-home');

module.exports = async (read) => {
  const home = scratchHome();
  try {
    const request = 'protocol=https\nhost=src.warm.test\npath=team/app.git\n\n';
    for (const argv of [
      ['git-credential', 'get'],
      ['git-credential', '--context', 'local', 'store'],
    ]) {
      if ((await read.cachedAnswer(argv, home.env, request)) === undefined)
        throw new Error(`the warm-up of auth ${argv.join(' ')} got no answer`);
    }
  } finally {
    home.remove();
  }
};

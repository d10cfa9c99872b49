import { inject, injectable } from 'inversify';
import { gitCredentialReply, gitHostOrigin, requestIsFor } from '../../../domain/login/git/git-credential';
import { escapedControls } from '../../../domain/shared/quoted';
import { CONFIG_STORE, type ConfigStore } from '../ports/config-store.port';
import { NOTIFIER, type Notifier } from '../ports/notifier.port';
import { TOKEN_CACHE, type TokenCache } from '../ports/token-cache.port';
import { AuthScopes } from './auth-scopes';
import { cachedGitCredential, GitCredentialInput } from './cached-git-credential';
import { GetGiteaToken } from './get-gitea-token.use-case';

export type { GitCredentialInput } from './cached-git-credential';

/**
 * `auth git-credential get|store|erase`, git's credential helper. `get` answers with
 * the stored git token, only for the git host of the domain (same scheme, host and
 * port), so no other host ever sees it. `store` and `erase` (git reporting that a
 * credential worked or was refused) leave skiff's cache alone. The token reaches git
 * through the helper's stdout only: never an argument, a URL or a file of git's.
 */
@injectable()
export class GitCredential {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(GetGiteaToken) private readonly gitToken: GetGiteaToken,
    @inject(NOTIFIER) private readonly notifier: Notifier,
    @inject(CONFIG_STORE) private readonly config: ConfigStore,
    @inject(TOKEN_CACHE) private readonly cache: TokenCache,
  ) {}

  /**
   * The reply for git's stdout; '' when skiff has nothing to say for this request. The
   * cached answer comes first, as the read path of `auth git-credential` gives it; only what
   * it leaves (a `get` it could not answer) is handled here.
   */
  async execute(input: GitCredentialInput): Promise<string> {
    const first = await cachedGitCredential({ config: this.config, cache: this.cache }, input);
    if (first.reply !== undefined) return first.reply;
    const { request, scope } = first;
    const gitHost = this.scopes.urls(scope, await this.scopes.resolveDomain(scope)).gitHost;
    if (!requestIsFor(request, gitHost)) {
      const { protocol, host } = gitHostOrigin(gitHost);
      this.notifier.info(
        `skiff: no credential for ${escapedControls(`${request.protocol ?? '?'}://${request.host ?? '?'}`)}: ` +
          `skiff answers for ${protocol}://${host} only`,
      );
      return '';
    }
    return gitCredentialReply(request, await this.gitToken.inScope(scope));
  }
}

import { inject, injectable } from 'inversify';
import { cacheUnusable, notLoggedIn, noGitTokenStored } from '../../../domain/login/auth/auth-errors';
import { AuthScope, AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';

/** get_gitea_token (git login step 5), for commands that talk to the git host. */
@injectable()
export class GetGiteaToken {
  constructor(@inject(AuthScopes) private readonly scopes: AuthScopes) {}

  async execute(target: AuthTarget): Promise<string> {
    return this.inScope(await this.scopes.scope(target));
  }

  /** The same, for a scope the caller has already read (git-credential: config.yaml read once). */
  async inScope(scope: AuthScope): Promise<string> {
    const { tokens, problem } = await this.scopes.readCache(scope);
    if (problem !== undefined) throw cacheUnusable(problem);
    if (tokens === undefined) throw notLoggedIn();
    if (tokens.giteaToken === undefined) throw noGitTokenStored();
    return tokens.giteaToken;
  }
}

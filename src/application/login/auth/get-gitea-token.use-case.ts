import { inject, injectable } from 'inversify';
import { cacheUnusable, notLoggedIn, noGitTokenStored } from '../../../domain/login/auth/auth-errors';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';

/** get_gitea_token (git login step 5), for commands that talk to the git host. */
@injectable()
export class GetGiteaToken {
  constructor(@inject(AuthScopes) private readonly scopes: AuthScopes) {}

  async execute(target: AuthTarget): Promise<string> {
    const { tokens, problem } = await this.scopes.readCache(await this.scopes.scope(target));
    if (problem !== undefined) throw cacheUnusable(problem);
    if (tokens === undefined) throw notLoggedIn();
    if (tokens.giteaToken === undefined) throw noGitTokenStored();
    return tokens.giteaToken;
  }
}

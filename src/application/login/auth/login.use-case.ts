import { inject, injectable } from 'inversify';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { GitLogin, gitTokenPage } from './git-login.use-case';
import { SetGiteaTokenResult } from './set-gitea-token.use-case';
import { SsoLogin, SsoLoginResult } from './sso-login.use-case';

export interface LoginInput {
  readonly target: AuthTarget;
  readonly openBrowser: boolean;
  readonly port?: number;
}

export interface LoginResult {
  readonly sso: SsoLoginResult;
  readonly git: SetGiteaTokenResult;
}

/**
 * `auth login`: the domain is resolved once and passed to both steps; SSO login's
 * callback page sends the browser on to the git token page, so the git step does
 * not open it a second time (it still prints it).
 */
@injectable()
export class Login {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(SsoLogin) private readonly sso: SsoLogin,
    @inject(GitLogin) private readonly git: GitLogin,
  ) {}

  async execute(input: LoginInput): Promise<LoginResult> {
    const scope = await this.scopes.scope(input.target);
    const domain = await this.scopes.resolveDomain(scope);
    const redirectTo = gitTokenPage(this.scopes.urls(scope, domain).gitHost);
    const sso = await this.sso.execute({
      target: input.target,
      domain,
      redirectTo,
      openBrowser: input.openBrowser,
      port: input.port,
    });
    const git = await this.git.execute({ target: input.target, domain, openBrowser: false });
    return { sso, git };
  }
}

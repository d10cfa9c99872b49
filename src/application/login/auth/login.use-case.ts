import { inject, injectable } from 'inversify';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { DeviceLogin } from './device-login.use-case';
import { GitLogin, gitTokenPage } from './git-login.use-case';
import { SetGiteaTokenResult } from './set-gitea-token.use-case';
import { SsoLogin, SsoLoginResult } from './sso-login.use-case';

export interface LoginInput {
  readonly target: AuthTarget;
  readonly openBrowser: boolean;
  readonly port?: number;
  /** The device grant instead of the loopback callback (no redirect to the git token page then). */
  readonly device?: boolean;
  readonly noDisplay?: boolean;
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
    @inject(DeviceLogin) private readonly device: DeviceLogin,
  ) {}

  async execute(input: LoginInput): Promise<LoginResult> {
    const scope = await this.scopes.scope(input.target);
    const domain = await this.scopes.resolveDomain(scope);
    const redirectTo = gitTokenPage(this.scopes.urls(scope, domain).gitHost);
    const { target, openBrowser } = input;
    const sso = input.device
      ? await this.device.execute({ target, domain, openBrowser })
      : await this.sso.execute({
          target,
          domain,
          redirectTo,
          openBrowser,
          port: input.port,
          noDisplay: input.noDisplay,
        });
    const git = await this.git.execute({ target, domain, openBrowser: input.device === true && openBrowser });
    return { sso, git };
  }
}

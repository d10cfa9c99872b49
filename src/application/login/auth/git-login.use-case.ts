import { inject, injectable } from 'inversify';
import { PROMPT, type Prompt } from '../ports/prompt.port';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { BrowserOpener } from './browser-opener';
import { SetGiteaToken, SetGiteaTokenResult } from './set-gitea-token.use-case';

export interface GitLoginInput {
  readonly target: AuthTarget;
  /** Set by `auth login`, which resolved the domain once for both steps. */
  readonly domain?: string;
  readonly openBrowser: boolean;
}

/** The git host's page where personal access tokens are created. */
export function gitTokenPage(gitHostUrl: string): string {
  return `${gitHostUrl}/user/settings/applications`;
}

/** Git login steps 1-4: show the token page, read the token, verify and store it. */
@injectable()
export class GitLogin {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(BrowserOpener) private readonly browser: BrowserOpener,
    @inject(PROMPT) private readonly prompt: Prompt,
    @inject(SetGiteaToken) private readonly store: SetGiteaToken,
  ) {}

  async execute(input: GitLoginInput): Promise<SetGiteaTokenResult> {
    const scope = await this.scopes.scope(input.target);
    const domain = input.domain ?? (await this.scopes.resolveDomain(scope));
    const page = gitTokenPage(this.scopes.urls(scope, domain).gitHost);
    await this.browser.show(page, 'Create a git access token with all scopes at:', input.openBrowser);
    const token = await this.prompt.secret('Paste the git token: ');
    return this.store.execute({ target: input.target, domain, token });
  }
}

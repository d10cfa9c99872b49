import { inject, injectable } from 'inversify';
import { gitHostOrigin, shellQuote } from '../../../domain/login/git/git-credential';
import { GIT_CONFIG, type GitConfig } from '../ports/git-config.port';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { pinnedTarget } from './pinned-target';

export interface SetupGitInput {
  readonly target: AuthTarget;
  /** How git starts skiff: the absolute path of the program the user ran. */
  readonly program: string;
}

export interface SetupGitResult {
  /** `https://src.<domain>` (or the context's git host). */
  readonly origin: string;
  readonly file: string;
}

/**
 * `auth setup-git`: git asks `skiff auth git-credential` for the git host's
 * credentials, and for that host only (the helper is configured under its URL).
 */
@injectable()
export class SetupGit {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(GIT_CONFIG) private readonly gitConfig: GitConfig,
  ) {}

  async execute(input: SetupGitInput): Promise<SetupGitResult> {
    const scope = await this.scopes.scope(input.target);
    const domain = await this.scopes.resolveDomain(scope);
    const { protocol, host } = gitHostOrigin(this.scopes.urls(scope, domain).gitHost);
    const origin = `${protocol}://${host}`;
    const words = [input.program, 'auth', 'git-credential', ...pinnedTarget(input.target, scope, domain)];
    const file = await this.gitConfig.setCredentialHelper(origin, `!${words.map(shellQuote).join(' ')}`);
    return { origin, file };
  }
}

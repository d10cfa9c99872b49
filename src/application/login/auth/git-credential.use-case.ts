import { inject, injectable } from 'inversify';
import {
  GitCredentialOperation,
  gitCredentialReply,
  gitHostOrigin,
  parseGitCredentialRequest,
  requestIsFor,
} from '../../../domain/login/git/git-credential';
import { escapedControls } from '../../../domain/shared/quoted';
import { NOTIFIER, type Notifier } from '../ports/notifier.port';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { GetGiteaToken } from './get-gitea-token.use-case';

export interface GitCredentialInput {
  readonly target: AuthTarget;
  readonly operation: GitCredentialOperation;
  /** What git wrote on standard input. */
  readonly request: string;
}

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
  ) {}

  /** The reply for git's stdout; '' when skiff has nothing to say for this request. */
  async execute(input: GitCredentialInput): Promise<string> {
    const request = parseGitCredentialRequest(input.request);
    if (input.operation !== 'get') return '';
    const scope = await this.scopes.scope(input.target);
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

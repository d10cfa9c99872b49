import { inject, injectable } from 'inversify';
import { ExecCredential, execCredential, parseExecInfo } from '../../../domain/login/kube/exec-credential';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { GetToken } from './get-token.use-case';

export interface KubeCredentialInput {
  readonly target: AuthTarget;
  /** KUBERNETES_EXEC_INFO as kubectl set it (undefined when unset). */
  readonly execInfo: string | undefined;
}

/**
 * `auth kube-credential`: kubectl's exec credential plugin. The token comes from
 * get_token, so it is refreshed (under the lock) exactly as `auth token` refreshes it.
 * KUBERNETES_EXEC_INFO is judged first: a kubeconfig skiff cannot serve fails before
 * any file is read.
 */
@injectable()
export class KubeCredential {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(GetToken) private readonly tokens: GetToken,
  ) {}

  async execute(input: KubeCredentialInput): Promise<ExecCredential> {
    const info = parseExecInfo(input.execInfo);
    const record = await this.tokens.tokens(await this.scopes.scope(input.target));
    return execCredential(info, record.accessToken, record.expiresAt);
  }
}

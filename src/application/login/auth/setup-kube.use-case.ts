import { inject, injectable } from 'inversify';
import { kubeUser } from '../../../domain/login/kube/kube-user';
import { KUBE_CONFIG, type KubeConfig, type KubeConfigChange } from '../ports/kube-config.port';
import { AuthScopes } from './auth-scopes';
import { AuthTarget } from './auth-target';
import { pinnedTarget } from './pinned-target';

export interface SetupKubeInput {
  readonly target: AuthTarget;
  /** How kubectl starts skiff: the absolute path of the program the user ran. */
  readonly program: string;
  /** Only show the entry; the kubeconfig is not touched. */
  readonly print: boolean;
}

export type SetupKubeResult =
  { readonly printed: string } | { readonly user: string; readonly path: string; readonly change: KubeConfigChange };

/** `auth setup-kube`: the kubeconfig user whose exec section runs `skiff auth kube-credential`. */
@injectable()
export class SetupKube {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(KUBE_CONFIG) private readonly kubeConfig: KubeConfig,
  ) {}

  async execute(input: SetupKubeInput): Promise<SetupKubeResult> {
    const scope = await this.scopes.scope(input.target);
    const domain = await this.scopes.resolveDomain(scope);
    const user = kubeUser(domain, input.program, pinnedTarget(input.target, scope, domain));
    if (input.print) return { printed: this.kubeConfig.render(user) };
    const { path, change } = await this.kubeConfig.upsertUser(user);
    return { user: user.name, path, change };
  }
}

/**
 * The kubeconfig `users` entry `skiff auth setup-kube` writes: an exec section that
 * makes kubectl run `skiff auth kube-credential` (Kubernetes "client-go credential
 * plugins"). v1 of the protocol (kubectl 1.22 and later) requires interactiveMode;
 * the plugin never prompts, so Never.
 */
export interface KubeUser {
  readonly name: string;
  readonly user: {
    readonly exec: {
      readonly apiVersion: 'client.authentication.k8s.io/v1';
      readonly command: string;
      readonly args: readonly string[];
      readonly interactiveMode: 'Never';
      readonly provideClusterInfo: false;
    };
  };
}

/** `skiff-<domain>`: one entry per domain, updated in place by a second run. */
export function kubeUserName(domain: string): string {
  return `skiff-${domain}`;
}

/** `program` runs skiff; `pin` (--domain d or --context c) says whose token it prints. */
export function kubeUser(domain: string, program: string, pin: readonly string[]): KubeUser {
  return {
    name: kubeUserName(domain),
    user: {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: program,
        args: ['auth', 'kube-credential', ...pin],
        interactiveMode: 'Never',
        provideClusterInfo: false,
      },
    },
  };
}

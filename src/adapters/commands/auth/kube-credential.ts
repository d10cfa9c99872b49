import { KubeCredential } from '../../../application/login/auth/kube-credential.use-case';
import { AuthCommand } from '../../login/inbound/cli/auth-command';

export default class AuthKubeCredential extends AuthCommand {
  static override summary = "kubectl's exec credential plugin: an ExecCredential with a valid access token.";
  static override description =
    'Run by kubectl (see `auth setup-kube`): prints an ExecCredential of the apiVersion KUBERNETES_EXEC_INFO asks ' +
    'for (client.authentication.k8s.io/v1 or v1beta1) with the access token, refreshed as `auth token` refreshes ' +
    'it, and nothing else on stdout. Errors go to stderr with the exit codes of every skiff command.';
  static override examples = [
    'KUBERNETES_EXEC_INFO=\'{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}\' <%= config.bin %> auth kube-credential --domain example.com',
  ];

  async run(): Promise<void> {
    const { flags } = await this.parse(AuthKubeCredential);
    const credential = await this.resolve(KubeCredential).execute({
      target: this.target(flags),
      execInfo: process.env.KUBERNETES_EXEC_INFO,
    });
    this.log(JSON.stringify(credential));
  }
}

import { Flags } from '@oclif/core';
import { resolve } from 'node:path';
import { SetupKube } from '../../../application/login/auth/setup-kube.use-case';
import { AuthCommand } from '../../login/inbound/cli/auth-command';

export default class AuthSetupKube extends AuthCommand {
  static override summary = 'Make kubectl get its token from skiff (a kubeconfig user with an exec section).';
  static override description =
    'Adds, or updates, the user skiff-<domain> in the kubeconfig kubectl would use ($KUBECONFIG, else ' +
    '~/.kube/config): its exec section runs `skiff auth kube-credential` for this domain. Everything else in the ' +
    'file stays as it was. Point a context at the user with `kubectl config set-context <name> --user skiff-<domain>`.';
  static override examples = [
    '<%= config.bin %> auth setup-kube --domain example.com',
    '<%= config.bin %> auth setup-kube --context prod --print',
  ];
  static override flags = {
    print: Flags.boolean({ description: 'Only print the user entry; the kubeconfig is not touched.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(AuthSetupKube);
    const result = await this.resolve(SetupKube).execute({
      target: this.target(flags),
      program: resolve(process.argv[1]),
      print: flags.print,
    });
    if ('printed' in result) {
      this.log(result.printed.trimEnd());
      return;
    }
    const done = { added: 'Added', updated: 'Updated', unchanged: 'Kept' }[result.change];
    this.log(`${done} the user ${result.user} in ${result.path}.`);
    this.log(`Use it in a context: kubectl config set-context <name> --user ${result.user}`);
  }
}

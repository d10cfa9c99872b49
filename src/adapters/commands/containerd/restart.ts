import { Flags } from '@oclif/core';
import { BaseCommand } from '../../shared/inbound/cli/base-command';
import { restartServing } from '../../shim/inbound/cli/containerd-restart';

export default class ContainerdRestart extends BaseCommand {
  static override summary =
    'Hand the running containers to a new skiff serving process (after an upgrade), losing nothing.';
  static override description =
    'Each serving process under <state>/skiff finishes the calls it has, writes its task records and exits; a new one, ' +
    'started from the skiff now installed, takes its containers over. Needs pod keepers (the default; not ' +
    "with SKIFF_KEEPER=0 in containerd's environment). See docs/upgrade.md.";
  static override examples = [
    '<%= config.bin %> containerd restart',
    '<%= config.bin %> containerd restart --state /run/containerd --namespace k8s.io',
  ];
  static override flags = {
    state: Flags.string({
      default: '/run/containerd',
      description: "containerd's state directory (its config.toml's state).",
    }),
    namespace: Flags.string({ description: 'Only the serving processes of this containerd namespace.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ContainerdRestart);
    await restartServing({
      state: flags.state,
      namespace: flags.namespace,
      out: (line) => this.log(line),
      warn: (line) => this.logToStderr(line),
    });
  }
}

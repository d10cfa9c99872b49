import { Flags } from '@oclif/core';
import { BaseCommand } from '../../shared/inbound/cli/base-command';
import { checkHandler, runtimeClassManifest } from '../../shim/inbound/cli/containerd-setup';

export default class ContainerdRuntimeclass extends BaseCommand {
  static override summary = 'Print the Kubernetes RuntimeClass whose pods containerd runs through skiff.';
  static override description =
    'Apply it once per cluster (kubectl apply -f -); a pod with spec.runtimeClassName set to its name then runs ' +
    'on the nodes whose containerd has the handler (`skiff containerd config`).';
  static override examples = [
    '<%= config.bin %> containerd runtimeclass | kubectl apply -f -',
    '<%= config.bin %> containerd runtimeclass --name skiff --handler skiff',
  ];
  static override flags = {
    name: Flags.string({
      default: 'skiff',
      description: "The RuntimeClass's name (what pods put in runtimeClassName).",
    }),
    handler: Flags.string({
      default: 'skiff',
      description: 'The runtime handler in containerd (`skiff containerd config --handler`).',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ContainerdRuntimeclass);
    process.stdout.write(runtimeClassManifest(checkHandler(flags.name), checkHandler(flags.handler)));
  }
}

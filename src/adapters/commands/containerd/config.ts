import { Flags } from '@oclif/core';
import { BaseCommand } from '../../shared/inbound/cli/base-command';
import {
  checkHandler,
  checkOciRuntime,
  CONFIG_FORMATS,
  containerdConfigSection,
  detectConfigFormat,
} from '../../shim/inbound/cli/containerd-setup';

export default class ContainerdConfig extends BaseCommand {
  static override summary = "Print skiff's section of containerd's config.toml (the CRI runtime handler).";
  static override description =
    'Append it to /etc/containerd/config.toml and restart containerd; a RuntimeClass with the same handler ' +
    '(`skiff containerd runtimeclass`) then runs pods through skiff. The format follows `containerd --version`: ' +
    'version 2 for containerd 1.6/1.7, version 3 for 2.x.';
  static override examples = [
    '<%= config.bin %> containerd config >> /etc/containerd/config.toml',
    '<%= config.bin %> containerd config --format v3',
    '<%= config.bin %> containerd config --systemd-cgroup',
    '<%= config.bin %> containerd config --oci-runtime crun',
  ];
  static override flags = {
    format: Flags.string({
      options: [...CONFIG_FORMATS],
      description: 'config.toml format: v2 (containerd 1.6/1.7) or v3 (2.x) [default: from `containerd --version`].',
    }),
    handler: Flags.string({ default: 'skiff', description: 'The runtime handler name a RuntimeClass refers to.' }),
    'systemd-cgroup': Flags.boolean({
      default: false,
      description:
        "Give the handler the option SystemdCgroup = true (runc's --systemd-cgroup), as containerd's runc handler is set for kubelet's systemd cgroup driver.",
    }),
    'oci-runtime': Flags.string({
      description:
        'Run containers with this runc-compatible binary (crun, say) instead of runc: the handler names /etc/skiff/NAME.toml, whose text is printed after it as comments.',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ContainerdConfig);
    const handler = checkHandler(flags.handler);
    const format = flags.format === 'v2' || flags.format === 'v3' ? flags.format : detectConfigFormat();
    const ociRuntime = flags['oci-runtime'] === undefined ? undefined : checkOciRuntime(flags['oci-runtime']);
    process.stdout.write(
      containerdConfigSection(format, handler, { systemdCgroup: flags['systemd-cgroup'], ociRuntime }),
    );
  }
}

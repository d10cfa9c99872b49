import { join } from 'node:path';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../../shared/inbound/cli/base-command';
import { packageRoot, skiffVersion } from '../../shared/helpers/package-info';
import { DEFAULT_CONFIG_FILE, readContainerdConfig } from '../../shim/inbound/cli/containerd-setup';
import { checkUnitPath, containerdPaths, unitFile } from '../../shim/inbound/cli/containerd-unit';

export default class ContainerdUnit extends BaseCommand {
  static override summary = "Print the systemd unit that keeps skiff's serving process up from the node's boot.";
  static override description =
    'A template, skiff@.service, one instance per containerd namespace: enabled for k8s.io, the namespace of the CRI ' +
    "plugin, the node's first pod finds its serving process warm. containerd's state and address come from its " +
    'config.toml (--config-file), else its defaults. Without the unit the first container starts the serving process, ' +
    'which then stays for the life of the node. See docs/node-daemon.md.';
  static override examples = [
    '<%= config.bin %> containerd unit > /etc/systemd/system/skiff@.service && systemctl daemon-reload && systemctl enable --now skiff@k8s.io',
  ];
  static override flags = {
    'config-file': Flags.string({
      default: DEFAULT_CONFIG_FILE,
      description: "containerd's config.toml, read for its `state` and `[grpc] address`.",
    }),
    state: Flags.string({ description: "containerd's state directory [default: the config's, else /run/containerd]." }),
    address: Flags.string({
      description: "containerd's socket [default: the config's [grpc] address, else /run/containerd/containerd.sock].",
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ContainerdUnit);
    const fromConfig = containerdPaths(readContainerdConfig(flags['config-file']));
    const node = process.env.SKIFF_NODE;
    process.stdout.write(
      unitFile({
        shim: checkUnitPath('the shim binary', join(packageRoot(), 'bin', 'containerd-shim-skiff-v2')),
        state: checkUnitPath('--state', flags.state ?? fromConfig.state),
        address: checkUnitPath('--address', flags.address ?? fromConfig.address),
        version: skiffVersion(),
        node: node === undefined || node === '' ? undefined : checkUnitPath('SKIFF_NODE', node),
      }),
    );
  }
}

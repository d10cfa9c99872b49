import { Flags } from '@oclif/core';
import { BaseCommand } from '../../shared/inbound/cli/base-command';
import {
  checkHandler,
  checkOciRuntime,
  checkSandboxer,
  CONFIG_FORMATS,
  containerdConfigSection,
  DEFAULT_CONFIG_FILE,
  chooseConfigFormat,
  factsOf,
  readContainerdConfig,
  shimBinaryPath,
} from '../../shim/inbound/cli/containerd-setup';

export default class ContainerdConfig extends BaseCommand {
  static override summary = "Print skiff's section of containerd's config.toml (the CRI runtime handler).";
  static override description =
    'Append it to /etc/containerd/config.toml and restart containerd; a RuntimeClass with the same handler ' +
    "(`skiff containerd runtimeclass`) then runs pods through skiff. The format follows the config's own `version`, else " +
    '`containerd --version`: version 2 for containerd 1.6/1.7, version 3 for 2.x. It reads the config it goes into (--config-file): ' +
    "nothing is printed when the handler is there already, and for containerd 1.x runc's handler is printed too " +
    'when the config leaves it to the defaults, which 1.x drops once a config names a runtime.';
  static override examples = [
    '<%= config.bin %> containerd config >> /etc/containerd/config.toml',
    '<%= config.bin %> containerd config --format v3',
    '<%= config.bin %> containerd config --systemd-cgroup',
    '<%= config.bin %> containerd config --oci-runtime crun',
    '<%= config.bin %> containerd config --runc-runtime-type',
    '<%= config.bin %> containerd config --handler skiff-sandbox --sandboxer shim',
  ];
  static override flags = {
    format: Flags.string({
      options: [...CONFIG_FORMATS],
      description:
        'config.toml format: v2 (containerd 1.6/1.7) or v3 (2.x) [default: the config file version, else from `containerd --version`].',
    }),
    handler: Flags.string({ default: 'skiff', description: 'The runtime handler name a RuntimeClass refers to.' }),
    'systemd-cgroup': Flags.boolean({
      default: false,
      description:
        "Give the handler the option SystemdCgroup = true (runc's --systemd-cgroup), as containerd's runc handler is set for kubelet's systemd cgroup driver.",
    }),
    'config-file': Flags.string({
      default: DEFAULT_CONFIG_FILE,
      description: 'The config.toml the section is appended to, read to print only what it lacks.',
    }),
    'runc-runtime-type': Flags.boolean({
      default: false,
      description:
        "Name skiff's shim by its path under runc's runtime type (runtime_path), so that containerd 2.0/2.1 tell kubelet the handler's features (hostUsers: false pods need user_namespaces); CRI's restore from a checkpoint archive fails that way.",
    }),
    sandboxer: Flags.string({
      options: ['podsandbox', 'shim'],
      default: 'podsandbox',
      description:
        "Who holds a pod's namespaces: a pause container (podsandbox, CRI's default), or skiff through containerd's Sandbox API (shim: no pause container; containerd 2.3, pod keepers on; docs/cri.md).",
    }),
    'oci-runtime': Flags.string({
      description:
        'Run containers with this runc-compatible binary (crun, say) instead of runc: the handler names /etc/skiff/NAME.toml, whose text is printed after it as comments.',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ContainerdConfig);
    const handler = checkHandler(flags.handler);
    const file = flags['config-file'];
    const config = readContainerdConfig(file);
    const { format, chosenFor } = chooseConfigFormat(flags.format, config, file);
    const ociRuntime = flags['oci-runtime'] === undefined ? undefined : checkOciRuntime(flags['oci-runtime']);
    const facts = factsOf(config, format, handler);
    if (facts.hasHandler) {
      process.stderr.write(
        `${file} has the runtime handler ${handler} already: nothing to add (--config-file /dev/null prints the section on its own)\n`,
      );
      return;
    }
    const sandboxApi = checkSandboxer(flags.sandboxer, format, flags['runc-runtime-type']);
    const shimPath = flags['runc-runtime-type'] ? shimBinaryPath() : undefined;
    process.stdout.write(
      containerdConfigSection(
        format,
        handler,
        { systemdCgroup: flags['systemd-cgroup'], ociRuntime, chosenFor, shimPath, sandboxApi },
        facts,
      ),
    );
  }
}

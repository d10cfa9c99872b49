import { Flags } from '@oclif/core';
import { UsageError } from '../../../domain/shared/errors';
import { OCI_RESOURCES_TYPE_URL } from '../../../application/shim/task/any-payload';
import { idFlag, readFlagFile, TaskCommand } from '../../shim/inbound/cli/task-command';

export default class TaskUpdate extends TaskCommand {
  static override summary = "Change a task's resources (Update) from OCI LinuxResources JSON.";
  static override description =
    'native applies cpu.shares (as a nice value) and answers UNIMPLEMENTED for the rest; runc applies everything `runc update` does.';
  static override examples = [
    '<%= config.bin %> task update --id web --resources \'{"cpu":{"shares":512}}\'',
    '<%= config.bin %> task update --id web --resources @limits.json',
  ];
  static override flags = {
    id: idFlag,
    resources: Flags.string({ description: 'LinuxResources JSON, or @file holding it.' }),
    annotation: Flags.string({ multiple: true, default: [], description: 'key=value (repeatable).' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(TaskUpdate);
    const text = flags.resources?.startsWith('@')
      ? readFlagFile('--resources', flags.resources.slice(1))
      : flags.resources;
    const annotations = new Map(
      flags.annotation.map((a) => {
        const eq = a.indexOf('=');
        if (eq <= 0) throw new UsageError(`--annotation ${JSON.stringify(a)} must be key=value`, 'CLI.ANNOTATION');
        return [a.slice(0, eq), a.slice(eq + 1)] as [string, string];
      }),
    );
    const resources =
      text === undefined ? undefined : { typeUrl: OCI_RESOURCES_TYPE_URL, value: new TextEncoder().encode(text) };
    await this.client(flags).update({ id: flags.id, resources, annotations });
  }
}

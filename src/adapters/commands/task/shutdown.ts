import { Flags } from '@oclif/core';
import { NetworkError } from '../../../domain/shared/errors';
import { TaskCommand } from '../../shim/inbound/cli/task-command';

export default class TaskShutdown extends TaskCommand {
  static override summary = 'Ask the shim to exit (Shutdown): it does once no task is left, or at once with --now.';
  static override examples = ['<%= config.bin %> task shutdown', '<%= config.bin %> task shutdown --now'];
  static override flags = {
    id: Flags.string({ default: '', description: 'Task id (containerd sends it; the shim does not need it).' }),
    now: Flags.boolean({ default: false, description: 'Kill the processes left and exit at once.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(TaskShutdown);
    await this.client(flags)
      .shutdown({ id: flags.id, now: flags.now })
      .catch((err: unknown) => {
        // The shim may exit before its reply arrives (containerd treats that as success too).
        if (!(err instanceof NetworkError)) throw err;
      });
  }
}

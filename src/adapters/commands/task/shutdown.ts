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
    const client = this.client(flags);
    // Any answer, NOT_FOUND included, shows a shim is there: without one, an
    // unreachable shim would pass for one that exited before its reply.
    await client.connect(flags.id).catch((err: unknown) => {
      if (err instanceof NetworkError) throw err;
    });
    await client.shutdown({ id: flags.id, now: flags.now }).catch((err: unknown) => {
      // The shim may exit before its reply arrives (containerd treats that as success too).
      if (!(err instanceof NetworkError)) throw err;
    });
  }
}

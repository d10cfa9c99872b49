import { Flags } from '@oclif/core';
import { resolve } from 'node:path';
import { idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';

export default class TaskCheckpoint extends TaskCommand {
  static override summary = 'Checkpoint a running task into a directory with CRIU (Checkpoint; runc runtime only).';
  static override examples = ['<%= config.bin %> task checkpoint --id web --path /var/lib/skiff/cp/web'];
  static override flags = {
    id: idFlag,
    path: Flags.string({ required: true, description: 'Directory to write the checkpoint images into.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(TaskCheckpoint);
    await this.client(flags).checkpoint({ id: flags.id, path: resolve(flags.path) });
  }
}

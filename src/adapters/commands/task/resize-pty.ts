import { Flags } from '@oclif/core';
import { execIdFlag, idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';

export default class TaskResizePty extends TaskCommand {
  static override summary = 'Resize the terminal of a process started with terminal=true (ResizePty).';
  static override examples = ['<%= config.bin %> task resize-pty --id web --width 120 --height 40'];
  static override flags = {
    id: idFlag,
    'exec-id': execIdFlag,
    width: Flags.integer({ required: true, min: 1, description: 'Columns.' }),
    height: Flags.integer({ required: true, min: 1, description: 'Rows.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(TaskResizePty);
    await this.client(flags).resizePty({
      id: flags.id,
      execId: flags['exec-id'],
      width: flags.width,
      height: flags.height,
    });
  }
}

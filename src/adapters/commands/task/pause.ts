import { idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';

export default class TaskPause extends TaskCommand {
  static override summary = 'Stop every process of a running task (Pause): the task becomes PAUSED.';
  static override examples = ['<%= config.bin %> task pause --id web'];
  static override flags = { id: idFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(TaskPause);
    await this.client(flags).pause(flags.id);
  }
}

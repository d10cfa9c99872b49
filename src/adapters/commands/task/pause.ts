import { idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';

export default class TaskPause extends TaskCommand {
  static override summary = 'Stop every process of a running task (Pause): the task becomes PAUSED.';
  static override examples = ['<%= config.bin %> task pause --address /run/skiff/shim.sock --id web'];
  static override flags = { id: idFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(TaskPause);
    await this.client(flags.address).pause(flags.id);
  }
}

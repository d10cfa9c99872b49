import { idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';

export default class TaskResume extends TaskCommand {
  static override summary = 'Continue a paused task (Resume): the task becomes RUNNING.';
  static override examples = ['<%= config.bin %> task resume --id web'];
  static override flags = { id: idFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(TaskResume);
    await this.client(flags).resume(flags.id);
  }
}

import { execIdFlag, idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';

export default class TaskStart extends TaskCommand {
  static override summary = "Start a created process (Start): the task's init, or an exec.";
  static override examples = ['<%= config.bin %> task start --id web'];
  static override flags = { id: idFlag, 'exec-id': execIdFlag };

  async run(): Promise<{ pid: number }> {
    const { flags } = await this.parse(TaskStart);
    const reply = await this.client(flags).start({ id: flags.id, execId: flags['exec-id'] });
    this.log(String(reply.pid));
    return reply;
  }
}

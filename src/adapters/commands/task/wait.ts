import { execIdFlag, idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';
import { exitJson, exitLine } from '../../shim/inbound/cli/task-output';

export default class TaskWait extends TaskCommand {
  static override summary = 'Wait until a process has exited and print its exit status (Wait).';
  static override examples = ['<%= config.bin %> task wait --id web'];
  static override flags = { id: idFlag, 'exec-id': execIdFlag };

  async run(): Promise<ReturnType<typeof exitJson>> {
    const { flags } = await this.parse(TaskWait);
    const exit = await this.client(flags).wait({ id: flags.id, execId: flags['exec-id'] });
    this.log(exitLine(exit));
    return exitJson(exit);
  }
}

import { execIdFlag, idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';
import { deleteJson, exitLine } from '../../shim/inbound/cli/task-output';

export default class TaskDelete extends TaskCommand {
  static override summary = 'Delete a stopped (or never started) process and return its exit status (Delete).';
  static override examples = ['<%= config.bin %> task delete --id web'];
  static override flags = { id: idFlag, 'exec-id': execIdFlag };

  async run(): Promise<ReturnType<typeof deleteJson>> {
    const { flags } = await this.parse(TaskDelete);
    const reply = await this.client(flags).delete({ id: flags.id, execId: flags['exec-id'] });
    this.log(`pid ${reply.pid}, ${exitLine(reply)}`);
    return deleteJson(reply);
  }
}

import { execIdFlag, idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';

export default class TaskCloseIo extends TaskCommand {
  static override summary = "Close a process's stdin (CloseIO): it reads end-of-file once your writer is closed too.";
  static override examples = ['<%= config.bin %> task close-io --id web'];
  static override flags = { id: idFlag, 'exec-id': execIdFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(TaskCloseIo);
    await this.client(flags).closeIO({ id: flags.id, execId: flags['exec-id'], stdin: true });
  }
}

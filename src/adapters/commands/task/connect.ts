import { idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';
import { connectJson } from '../../shim/inbound/cli/task-output';

export default class TaskConnect extends TaskCommand {
  static override summary = "Show the shim's pid, the task's init pid and the shim version (Connect).";
  static override examples = ['<%= config.bin %> task connect --id web --json'];
  static override flags = { id: idFlag };

  async run(): Promise<ReturnType<typeof connectJson>> {
    const { flags } = await this.parse(TaskConnect);
    const c = await this.client(flags).connect(flags.id);
    this.log(`shim pid ${c.shimPid}, task pid ${c.taskPid}, version ${c.version}`);
    return connectJson(c);
  }
}

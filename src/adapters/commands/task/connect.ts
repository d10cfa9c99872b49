import { idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';

export default class TaskConnect extends TaskCommand {
  static override summary = "Show the shim's pid, the task's init pid and the shim version (Connect).";
  static override examples = ['<%= config.bin %> task connect --id web --json'];
  static override flags = { id: idFlag };

  async run(): Promise<{ shim_pid: number; task_pid: number; version: string }> {
    const { flags } = await this.parse(TaskConnect);
    const c = await this.client(flags).connect(flags.id);
    this.log(`shim pid ${c.shimPid}, task pid ${c.taskPid}, version ${c.version}`);
    return { shim_pid: c.shimPid, task_pid: c.taskPid, version: c.version };
  }
}

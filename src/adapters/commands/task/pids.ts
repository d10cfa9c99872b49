import { idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';
import { pidsJson } from '../../shim/inbound/cli/task-output';

export default class TaskPids extends TaskCommand {
  static override summary = 'List the processes of a task (Pids); exec processes are marked with their exec id.';
  static override examples = ['<%= config.bin %> task pids --id web'];
  static override flags = { id: idFlag };

  async run(): Promise<ReturnType<typeof pidsJson>> {
    const { flags } = await this.parse(TaskPids);
    const pids = await this.client(flags).pids(flags.id);
    for (const p of pids) this.log(p.execId === undefined ? String(p.pid) : `${p.pid}\t${p.execId}`);
    return pidsJson(pids);
  }
}

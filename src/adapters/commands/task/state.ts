import { execIdFlag, idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';
import { stateJson } from '../../shim/inbound/cli/task-output';

export default class TaskState extends TaskCommand {
  static override summary = "Show a process's state (State): status, pid, stdio, exit status.";
  static override examples = ['<%= config.bin %> task state --id web --json'];
  static override flags = { id: idFlag, 'exec-id': execIdFlag };

  async run(): Promise<ReturnType<typeof stateJson>> {
    const { flags } = await this.parse(TaskState);
    const state = stateJson(await this.client(flags).state({ id: flags.id, execId: flags['exec-id'] }));
    const exit = state.exited_at === undefined ? '' : `  exit_status=${state.exit_status} exited_at=${state.exited_at}`;
    this.log(`${state.id}${state.exec_id ? `/${state.exec_id}` : ''}  ${state.status}  pid=${state.pid}${exit}`);
    return state;
  }
}

import { ListRuns, RunView } from '../../../application/shim/run/list-runs.use-case';
import { AppConfig } from '../../../infrastructure/shared/app-config';
import { BaseCommand } from '../../shared/inbound/cli/base-command';
import { tableLines } from '../../shared/inbound/cli/table';
import { stateJson } from '../../shim/inbound/cli/task-output';

function runJson(run: RunView) {
  const base = { id: run.id, address: run.address };
  return 'state' in run ? { ...base, ...stateJson(run.state) } : { ...base, status: run.problem.toUpperCase() };
}

export default class TaskLs extends BaseCommand {
  static override summary = 'List the tasks that `skiff run` started and that are still there, with their state.';
  static override description =
    'Each run has its own shim, found by the task id: `skiff task <verb> --id <id>` reaches it without --address. ' +
    'A task killed outside skiff leaves STOPPED; a shim killed outside skiff leaves SHIM UNREACHABLE (a later ' +
    '`skiff run --id <id>` replaces what it left).';
  static override examples = ['<%= config.bin %> task ls', '<%= config.bin %> task ls --json'];
  static override aliases = ['task:list'];
  static override enableJsonFlag = true;

  protected override appConfig(): AppConfig {
    return { taskClient: true };
  }

  async run(): Promise<{ tasks: ReturnType<typeof runJson>[] }> {
    await this.parse(TaskLs);
    const tasks = (await this.resolve(ListRuns).execute()).map(runJson);
    const rows = tasks.map((t) => [
      t.id,
      t.status,
      'pid' in t ? String(t.pid) : '-',
      'bundle' in t ? (t.bundle ?? '') : '',
    ]);
    if (tasks.length > 0) for (const line of tableLines([['TASK', 'STATUS', 'PID', 'BUNDLE'], ...rows])) this.log(line);
    return { tasks };
  }
}

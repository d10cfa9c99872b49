import { idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';
import { statsJson } from '../../shim/inbound/cli/task-output';

export default class TaskStats extends TaskCommand {
  static override summary = "Show a task's resource figures (Stats, a skiff.v1.TaskStats message).";
  static override examples = ['<%= config.bin %> task stats --id web --json'];
  static override flags = { id: idFlag };

  async run(): Promise<ReturnType<typeof statsJson>> {
    const { flags } = await this.parse(TaskStats);
    const stats = statsJson(await this.client(flags).stats(flags.id));
    for (const [key, value] of Object.entries(stats)) this.log(`${key}\t${value}`);
    return stats;
  }
}

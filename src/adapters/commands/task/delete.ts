import { NetworkError } from '../../../domain/shared/errors';
import { execIdFlag, idFlag, TaskCommand } from '../../shim/inbound/cli/task-command';
import { deleteJson, exitLine } from '../../shim/inbound/cli/task-output';

export default class TaskDelete extends TaskCommand {
  static override summary = 'Delete a stopped (or never started) process and return its exit status (Delete).';
  static override description =
    "Deleting the task of a `skiff run` (found by its id) also shuts the run's shim down, as containerd " +
    'sends Shutdown after Delete: the run is then gone.';
  static override examples = ['<%= config.bin %> task delete --id web'];
  static override flags = { id: idFlag, 'exec-id': execIdFlag };

  async run(): Promise<ReturnType<typeof deleteJson>> {
    const { flags } = await this.parse(TaskDelete);
    const client = this.client(flags);
    const reply = await client.delete({ id: flags.id, execId: flags['exec-id'] });
    if (flags['exec-id'] === '' && this.runAddress(flags) !== undefined) {
      // The shim exits once no task is left; its reply may race that exit.
      await client.shutdown({ id: flags.id, now: false }).catch((err: unknown) => {
        if (!(err instanceof NetworkError)) throw err;
      });
    }
    this.log(`pid ${reply.pid}, ${exitLine(reply)}`);
    return deleteJson(reply);
  }
}

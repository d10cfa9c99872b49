import { inject, injectable } from 'inversify';
import { isDomainError } from '../../../domain/shared/errors';
import { RUN_DIRECTORY, type RunDirectory, type RunEntry } from '../ports/run-directory.port';
import { TASK_CLIENT_FACTORY, type TaskClientFactory } from '../ports/task-client.port';
import { StateView } from '../task/task-messages';

/** A run as `skiff task ls` shows it: its task's state, or why there is none. */
export type RunView =
  | { readonly id: string; readonly address: string; readonly state: StateView }
  | { readonly id: string; readonly address: string; readonly problem: 'no task' | 'shim unreachable' };

/** `skiff task ls`: every run `skiff run` left serving, with its task's State. */
@injectable()
export class ListRuns {
  constructor(
    @inject(RUN_DIRECTORY) private readonly runs: RunDirectory,
    @inject(TASK_CLIENT_FACTORY) private readonly clients: TaskClientFactory,
  ) {}

  async execute(): Promise<RunView[]> {
    return Promise.all(this.runs.list().map((run) => this.view(run)));
  }

  private async view(run: RunEntry): Promise<RunView> {
    const client = this.clients.connect(run.address);
    try {
      return { ...run, state: await client.state({ id: run.id, execId: '' }) };
    } catch (err) {
      const problem = isDomainError(err) && err.kind === 'NotFound' ? 'no task' : 'shim unreachable';
      return { ...run, problem };
    } finally {
      client.close();
    }
  }
}

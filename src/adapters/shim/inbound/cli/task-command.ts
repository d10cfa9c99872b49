import { Flags } from '@oclif/core';
import {
  TASK_CLIENT_FACTORY,
  TaskClient,
  TaskClientFactory,
} from '../../../../application/shim/ports/task-client.port';
import { AppConfig } from '../../../../infrastructure/shared/app-config';
import { BaseCommand } from '../../../shared/inbound/cli/base-command';

/** Flags every `skiff task` command shares, and the connection to the shim. */
export abstract class TaskCommand extends BaseCommand {
  static override enableJsonFlag = true;
  static override baseFlags = {
    address: Flags.string({
      required: true,
      description: 'Socket of the shim (the --address given to `skiff shim serve`).',
    }),
  };

  private connection: TaskClient | undefined;

  protected override appConfig(): AppConfig {
    return { taskClient: true };
  }

  protected client(address: string): TaskClient {
    this.connection ??= this.resolve<TaskClientFactory>(TASK_CLIENT_FACTORY).connect(address);
    return this.connection;
  }

  protected override async finally(err: Error | undefined): Promise<void> {
    this.connection?.close();
    await super.finally(err);
  }
}

export const idFlag = Flags.string({ required: true, description: 'Task id.' });
export const execIdFlag = Flags.string({
  default: '',
  description: "Exec id of an additional process (empty: the task's init).",
});

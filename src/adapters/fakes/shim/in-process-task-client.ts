import { TaskClient, TaskClientFactory } from '../../../application/shim/ports/task-client.port';
import { TASK_METHODS, TaskApi, TaskMethod } from '../../../application/shim/task/task-api';
import { TaskService } from '../../../application/shim/task/task-service';

/** How a call is written in `calls`: the method name, with the detail a test asserts on. */
function label(method: TaskMethod, input: unknown): string {
  if (method === 'kill') return `kill:${(input as { signal: number }).signal}`;
  if (method === 'resizePty')
    return `resize:${(input as { width: number }).width}x${(input as { height: number }).height}`;
  return method;
}

/** A TaskClient that calls a TaskService in this process (no socket), recording the calls. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface below
export class InProcessTaskClient implements TaskClient {
  readonly calls: string[] = [];
  closed = false;

  constructor(service: TaskService) {
    // Every method of the service, by the one list of them (task-api.ts).
    const call = async (method: TaskMethod, input: unknown): Promise<unknown> => {
      this.calls.push(label(method, input));
      return (service[method] as (arg: unknown) => unknown).call(service, input);
    };
    for (const method of TASK_METHODS)
      (this as Record<string, unknown>)[method] = (input: unknown) => call(method, input);
  }

  close(): void {
    this.closed = true;
  }
}

// The methods are installed in the constructor; this tells the compiler they exist.
// The merge is the point: the class's fields typed once, by the interface.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface InProcessTaskClient extends TaskApi {}

export class InProcessTaskClientFactory implements TaskClientFactory {
  readonly clients: InProcessTaskClient[] = [];

  constructor(private readonly service: TaskService) {}

  connect(): TaskClient {
    const client = new InProcessTaskClient(this.service);
    this.clients.push(client);
    return client;
  }
}

import { TaskClient, TaskClientFactory } from '../../../../application/shim/ports/task-client.port';
import { TTRPC_TASK_SERVICE } from '../../wire/ttrpc/service-names';
import { TtrpcClient } from '../../wire/ttrpc/ttrpc-client';
import { RpcTaskClient } from './rpc-task-client';

/** TaskClient over ttrpc, calling containerd.task.v2.Task as containerd does. */
export class TtrpcTaskClient extends RpcTaskClient {
  constructor(address: string) {
    const client = new TtrpcClient(address);
    super(
      { call: (method, request) => client.call(TTRPC_TASK_SERVICE, method, request), close: () => client.close() },
      address,
    );
  }
}

export class TtrpcTaskClientFactory implements TaskClientFactory {
  connect(address: string): TaskClient {
    return new TtrpcTaskClient(address);
  }
}

import { TaskClient, TaskClientFactory } from '../../../../application/shim/ports/task-client.port';
import { TTRPC_TASK_SERVICE } from '../../wire/ttrpc/service-names';
import { TtrpcClient } from '../../wire/ttrpc/ttrpc-client';
import { RpcTaskClient } from './rpc-task-client';

/** TaskClient over ttrpc, calling containerd.task.v2.Task as containerd does. */
export class TtrpcTaskClient extends RpcTaskClient {
  /** `service`: containerd.task.v3.Task for a shim that answered its start with version 3 (containerd 2.x's runc shim). */
  constructor(address: string, service: string = TTRPC_TASK_SERVICE) {
    const client = new TtrpcClient(address);
    super({ call: (method, request) => client.call(service, method, request), close: () => client.close() }, address);
  }
}

export class TtrpcTaskClientFactory implements TaskClientFactory {
  connect(address: string): TaskClient {
    return new TtrpcTaskClient(address);
  }
}

import { TTRPC_TASK_SERVICE } from '../../helpers/ttrpc/service-names';
import { TaskHandlers } from '../task-rpc/task-handlers';
import { TtrpcListenTarget, TtrpcServer } from './ttrpc-server';

/**
 * Serves task handlers as containerd.task.v2.Task over ttrpc: the shared table (the same
 * handlers and status codes as over gRPC), or containerd's variant of it.
 */
export function listenTtrpcTaskServer(target: TtrpcListenTarget, handlers: TaskHandlers): Promise<TtrpcServer> {
  return TtrpcServer.listen(target, new Map([[TTRPC_TASK_SERVICE, handlers]]));
}

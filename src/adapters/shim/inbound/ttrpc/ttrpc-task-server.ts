import { TTRPC_TASK_SERVICE } from '../../wire/ttrpc/service-names';
import { ListenTarget, SocketListener } from '../../os/socket-listener';
import { TaskHandlers } from '../task-rpc/task-handlers';
import { TtrpcServer } from './ttrpc-server';

/**
 * Serves task handlers as containerd.task.v2.Task over ttrpc: the shared table (the same
 * handlers and status codes as over gRPC), or containerd's variant of it.
 */
export function listenTtrpcTaskServer(target: ListenTarget, handlers: TaskHandlers): Promise<TtrpcServer> {
  return TtrpcServer.listen(target, new Map([[TTRPC_TASK_SERVICE, handlers]]));
}

/** The same, on a socket that already listens (`skiff shim serve` binds it first). */
export function serveTtrpcTaskServer(listener: SocketListener, handlers: TaskHandlers): TtrpcServer {
  return TtrpcServer.serve(listener, new Map([[TTRPC_TASK_SERVICE, handlers]]));
}

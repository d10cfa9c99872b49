import { TTRPC_SANDBOX_SERVICE, TTRPC_TASK_SERVICE } from '../../wire/ttrpc/service-names';
import type { MethodTable } from './ttrpc-dispatch';
import { ListenTarget, SocketListener } from '../../os/socket-listener';
import { TaskHandlers } from '../task-rpc/task-handlers';
import { TtrpcServer, TtrpcServerOptions } from './ttrpc-server';

/**
 * Serves task handlers as containerd.task.v2.Task over ttrpc: the shared table (the same
 * handlers and status codes as over gRPC), or containerd's variant of it; and for containerd's
 * serving process the Sandbox API's handlers beside them, on the same connections.
 */
export function listenTtrpcTaskServer(
  target: ListenTarget,
  handlers: TaskHandlers,
  options: TtrpcServerOptions = {},
  sandbox?: MethodTable,
): Promise<TtrpcServer> {
  const services = new Map<string, MethodTable>([[TTRPC_TASK_SERVICE, handlers]]);
  if (sandbox !== undefined) services.set(TTRPC_SANDBOX_SERVICE, sandbox);
  return TtrpcServer.listen(target, services, options);
}

/** The same, on a socket that already listens (`skiff shim serve` binds it first). */
export function serveTtrpcTaskServer(listener: SocketListener, handlers: TaskHandlers): TtrpcServer {
  return TtrpcServer.serve(listener, new Map([[TTRPC_TASK_SERVICE, handlers]]));
}

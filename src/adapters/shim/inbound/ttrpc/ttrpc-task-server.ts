import { TaskService } from '../../../../application/shim/task/task-service';
import { TTRPC_TASK_SERVICE } from '../../helpers/ttrpc/service-names';
import { SocketListener } from '../task-rpc/socket-listener';
import { taskHandlers } from '../task-rpc/task-handlers';
import { TtrpcServer } from './ttrpc-server';

/** Serves the task service over ttrpc with the same handlers, and the same status codes, as over gRPC. */
export function serveTtrpcTaskServer(listener: SocketListener, service: TaskService): TtrpcServer {
  return TtrpcServer.serve(listener, new Map([[TTRPC_TASK_SERVICE, taskHandlers(service)]]));
}

import { TaskService } from '../../../../application/shim/task/task-service';
import { TTRPC_TASK_SERVICE } from '../../helpers/ttrpc/service-names';
import { taskHandlers } from '../task-rpc/task-handlers';
import { TtrpcListenTarget, TtrpcServer } from './ttrpc-server';

/** Serves the task service over ttrpc with the same handlers, and the same status codes, as over gRPC. */
export function listenTtrpcTaskServer(target: TtrpcListenTarget, service: TaskService): Promise<TtrpcServer> {
  return TtrpcServer.listen(target, new Map([[TTRPC_TASK_SERVICE, taskHandlers(service)]]));
}

import { TaskApi } from '../task/task-api';

export const TASK_CLIENT_FACTORY = Symbol('TaskClientFactory');

/** A connection to a running shim's task.v2.Task service: the service's own methods (TaskApi), remotely. */
export interface TaskClient extends TaskApi {
  close(): void;
}

export interface TaskClientFactory {
  /** connect: a client for the shim at `address` (a socket path or unix: URI); calls fail with Network if nobody serves it. */
  connect(address: string): TaskClient;
}

import type { TaskService } from './task-service';

/** The 17 task.v2.Task RPCs, by the names TaskService gives them. */
export const TASK_METHODS = [
  'create',
  'start',
  'delete',
  'exec',
  'state',
  'wait',
  'kill',
  'pause',
  'resume',
  'pids',
  'closeIO',
  'resizePty',
  'update',
  'stats',
  'checkpoint',
  'connect',
  'shutdown',
] as const;

export type TaskMethod = (typeof TASK_METHODS)[number];

/**
 * The task service as a caller in another process sees it: TaskService's own
 * signatures, every reply asynchronous. Derived, so a change to the service is a
 * compile error in every client and fake until they follow.
 */
export type TaskApi = {
  [K in TaskMethod]: (...args: Parameters<TaskService[K]>) => Promise<Awaited<ReturnType<TaskService[K]>>>;
};

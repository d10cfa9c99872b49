import {
  ConnectView, CreateTaskInput, DeleteView, ExecInput, ExitView, KillInput, PidView, ProcessRef, ResizeInput, StateView, StatsView, UpdateInput,
} from '../task/task-messages';

export const TASK_CLIENT_FACTORY = Symbol('TaskClientFactory');

/** A connection to a running shim's task.v2.Task service (the client side of TaskService). */
export interface TaskClient {
  create(input: CreateTaskInput): Promise<{ pid: number }>;
  start(ref: ProcessRef): Promise<{ pid: number }>;
  delete(ref: ProcessRef): Promise<DeleteView>;
  exec(input: ExecInput): Promise<void>;
  state(ref: ProcessRef): Promise<StateView>;
  wait(ref: ProcessRef): Promise<ExitView>;
  kill(input: KillInput): Promise<void>;
  pause(id: string): Promise<void>;
  resume(id: string): Promise<void>;
  pids(id: string): Promise<PidView[]>;
  closeIO(ref: ProcessRef & { stdin: boolean }): Promise<void>;
  resizePty(input: ResizeInput): Promise<void>;
  update(input: UpdateInput): Promise<void>;
  stats(id: string): Promise<StatsView>;
  checkpoint(input: { id: string; path: string }): Promise<void>;
  connect(id: string): Promise<ConnectView>;
  shutdown(input: { id: string; now: boolean }): Promise<void>;
  close(): void;
}

export interface TaskClientFactory {
  /** connect: a client for the shim at `address` (a socket path or unix: URI); calls fail with Network if nobody serves it. */
  connect(address: string): TaskClient;
}

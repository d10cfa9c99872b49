import { RootfsMount } from './process-runtime.port';

export const EVENTS = Symbol('Events');

/**
 * What happened to a task, as containerd's task events name it (topic). `id` is the
 * task; `execId` '' is its init. An exit carries the status the service reports.
 */
export type TaskEvent =
  | {
      readonly topic: '/tasks/create';
      readonly id: string;
      readonly bundle: string;
      readonly rootfs: readonly RootfsMount[];
      readonly stdio: { stdin: string; stdout: string; stderr: string; terminal: boolean };
      readonly checkpoint: string;
      readonly pid: number;
    }
  | { readonly topic: '/tasks/start'; readonly id: string; readonly pid: number }
  | {
      readonly topic: '/tasks/exit';
      readonly id: string;
      readonly execId: string;
      readonly pid: number;
      readonly exitStatus: number;
      readonly exitedAt: Date;
    }
  | {
      readonly topic: '/tasks/delete';
      readonly id: string;
      readonly pid: number;
      readonly exitStatus: number;
      readonly exitedAt: Date | undefined;
    }
  | { readonly topic: '/tasks/exec-added'; readonly id: string; readonly execId: string }
  | { readonly topic: '/tasks/exec-started'; readonly id: string; readonly execId: string; readonly pid: number }
  | { readonly topic: '/tasks/paused' | '/tasks/resumed' | '/tasks/oom'; readonly id: string };

/** Where the task service reports its tasks' events (containerd's events service, or nowhere). */
export interface Events {
  /** publish: queues the event for delivery after every event published before it; never throws or waits. */
  publish(event: TaskEvent): void;
}

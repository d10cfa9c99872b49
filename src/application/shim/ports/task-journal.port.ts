import { ExitStatus } from '../../../domain/shim/exit-status';
import { Stdio } from '../../../domain/shim/task-process';
import { RootfsMount } from './process-runtime.port';

export const TASK_JOURNAL = Symbol('TaskJournal');

/** A process's status as recorded (a deleted process has no record). */
export type RecordedStatus = 'created' | 'running' | 'paused' | 'stopped';

/** One process of a task as the serving process last knew it. */
export interface ProcessRecord {
  /** '' for the task's init. */
  readonly execId: string;
  readonly stdio: Stdio;
  /** 0 while no process was made (an exec not started, a task restored from a checkpoint at Start). */
  readonly pid: number;
  /** The process's start time as the OS counts it (see ProcessHandle.startTime); 0 when unknown. */
  readonly startTime: number;
  readonly status: RecordedStatus;
  /** Set once the exit was learnt. */
  readonly exit?: ExitStatus;
}

/** An exec's record: also the OCI process JSON the client sent, so an exec not yet started can still be. */
export interface ExecRecord extends ProcessRecord {
  readonly spec: Readonly<Record<string, unknown>>;
}

/**
 * What a new serving process needs to answer every RPC for a task a previous one made
 * (docs/keeper-protocol.md, "The task directory"): what it was created from, and each process.
 */
export interface TaskRecord {
  readonly id: string;
  readonly bundle: string;
  /** The runtime that made it (`runc`). */
  readonly runtime: string;
  readonly rootfs: readonly RootfsMount[];
  readonly checkpoint: string;
  readonly options?: { readonly typeUrl: string; readonly value: Uint8Array };
  readonly createdAt: Date;
  readonly init: ProcessRecord;
  readonly execs: readonly ExecRecord[];
}

/** What was found at start: the records that could be read, and one line for each that could not. */
export interface JournalContents {
  readonly records: TaskRecord[];
  readonly problems: string[];
}

/** The serving process's record of each task, kept where a new serving process finds it. */
export interface TaskJournal {
  /** record: replaces the task's record; a reader sees the old record or the new one, never a torn one. */
  record(task: TaskRecord): Promise<void>;
  /** forget: removes the task's record (and nothing is left of it); an unknown id is fine. */
  forget(id: string): Promise<void>;
  /** readAll: every readable record; an unreadable one is a problem line naming it, never an error. */
  readAll(): Promise<JournalContents>;
}

import { ProcessStatus } from '../../../domain/shim/lifecycle';
import { Stdio } from '../../../domain/shim/task-process';
import { TaskStats } from '../../../domain/shim/task-stats';
import { RootfsMount } from '../ports/process-runtime.port';

/** A google.protobuf.Any as the use cases see it (no protobuf classes past the adapter). */
export interface AnyPayload {
  readonly typeUrl: string;
  readonly value: Uint8Array;
}

export interface ProcessRef {
  readonly id: string;
  readonly execId: string;
}

export interface CreateTaskInput extends Stdio {
  readonly id: string;
  readonly bundle: string;
  readonly rootfs: readonly RootfsMount[];
  readonly checkpoint: string;
  readonly parentCheckpoint: string;
  /** The runtime's own options (containerd sends containerd.runc.v1.Options); the runtime reads them. */
  readonly options?: AnyPayload;
}

export interface ExecInput extends ProcessRef, Stdio {
  readonly spec: AnyPayload | undefined;
}

export interface KillInput extends ProcessRef {
  readonly signal: number;
  readonly all: boolean;
}

export interface ResizeInput extends ProcessRef {
  readonly width: number;
  readonly height: number;
}

export interface UpdateInput {
  readonly id: string;
  readonly resources: AnyPayload | undefined;
  readonly annotations: ReadonlyMap<string, string>;
}

export interface CheckpointInput {
  readonly id: string;
  /** The directory containerd made for the images. */
  readonly path: string;
  /** CheckpointTaskRequest.options as sent (containerd.runc.v1.CheckpointOptions from containerd's clients). */
  readonly options?: AnyPayload;
}

export interface ExitView {
  readonly exitStatus: number;
  /** Unset until the process has exited (docs/shim-contract.md, "Exit statuses"). */
  readonly exitedAt: Date | undefined;
}

export interface DeleteView extends ExitView {
  readonly pid: number;
}

export interface StateView extends Stdio, ExitView {
  readonly id: string;
  readonly execId: string;
  readonly bundle: string;
  readonly pid: number;
  readonly status: ProcessStatus;
}

export interface PidView {
  readonly pid: number;
  /** Set when the pid is an exec process's. */
  readonly execId: string | undefined;
}

export interface StatsView extends TaskStats {
  readonly runtime: string;
}

export interface ConnectView {
  readonly shimPid: number;
  readonly taskPid: number;
  readonly version: string;
}

export interface ShutdownInput {
  readonly id: string;
  /** Kill what is left and exit even with tasks left. */
  readonly now: boolean;
}

import { ProcessStatus } from '../../../../domain/shim/lifecycle';
import { TaskClient } from '../../../../application/shim/ports/task-client.port';
import {
  AnyPayload,
  ConnectView,
  CreateTaskInput,
  DeleteView,
  ExecInput,
  ExitView,
  KillInput,
  PidView,
  ProcessRef,
  ResizeInput,
  StateView,
  StatsView,
  UpdateInput,
} from '../../../../application/shim/task/task-messages';
import { google as anyPb } from '../../wire/proto/generated/google/protobuf/any';
import { google as tsPb } from '../../wire/proto/generated/google/protobuf/timestamp';
import { skiff } from '../../wire/proto/generated/skiff/v1/skiff';
import { task } from '../../wire/proto/generated/task/v2/shim';
import { types as mountPb } from '../../wire/proto/generated/types/mount';
import { v1 } from '../../wire/proto/generated/v1/types/task';
import { PROCESS_DETAILS_TYPE_URL } from '../../wire/type-urls';
import { fromRpcError, RpcFailure } from './from-rpc-error';

const pb = task.v2;
type MethodName = keyof typeof pb.UnimplementedTaskService.definition;

/**
 * How one transport carries a unary task.v2.Task call: the bare method name and the
 * serialized request in, the serialized reply out; a failure rejects with its status.
 */
export interface UnaryTransport {
  call(method: MethodName, request: Buffer): Promise<Buffer>;
  close(): void;
}

const STATUS_NAMES: Record<number, ProcessStatus> = {
  [v1.types.Status.CREATED]: 'created',
  [v1.types.Status.RUNNING]: 'running',
  [v1.types.Status.PAUSED]: 'paused',
  [v1.types.Status.PAUSING]: 'paused',
  [v1.types.Status.STOPPED]: 'stopped',
};

function toDate(ts: tsPb.protobuf.Timestamp, present: boolean): Date | undefined {
  return present ? new Date(ts.seconds * 1000 + Math.floor(ts.nanos / 1e6)) : undefined;
}

function toAny(payload: AnyPayload | undefined): anyPb.protobuf.Any | undefined {
  return payload === undefined
    ? undefined
    : new anyPb.protobuf.Any({ type_url: payload.typeUrl, value: payload.value });
}

/** TaskClient over any transport: application views in, task.v2 messages on the wire. */
export class RpcTaskClient implements TaskClient {
  constructor(
    private readonly transport: UnaryTransport,
    private readonly address: string,
  ) {}

  private async call<Req, Res>(method: MethodName, request: Req): Promise<Res> {
    const { requestSerialize, responseDeserialize } = pb.UnimplementedTaskService.definition[method] as unknown as {
      requestSerialize: (request: Req) => Buffer;
      responseDeserialize: (bytes: Buffer) => Res;
    };
    let reply: Buffer;
    try {
      reply = await this.transport.call(method, requestSerialize(request));
    } catch (err) {
      throw fromRpcError(err as RpcFailure, this.address);
    }
    return responseDeserialize(reply);
  }

  async create(i: CreateTaskInput): Promise<{ pid: number }> {
    const rootfs = i.rootfs.map(
      (m) => new mountPb.Mount({ type: m.type, source: m.source, target: m.target, options: [...m.options] }),
    );
    const reply = await this.call<unknown, task.v2.CreateTaskResponse>(
      'Create',
      new pb.CreateTaskRequest({
        id: i.id,
        bundle: i.bundle,
        terminal: i.terminal,
        stdin: i.stdin,
        stdout: i.stdout,
        stderr: i.stderr,
        checkpoint: i.checkpoint,
        parent_checkpoint: i.parentCheckpoint,
        rootfs,
        options: toAny(i.options),
      }),
    );
    return { pid: reply.pid };
  }

  async start(ref: ProcessRef): Promise<{ pid: number }> {
    const reply = await this.call<unknown, task.v2.StartResponse>(
      'Start',
      new pb.StartRequest({ id: ref.id, exec_id: ref.execId }),
    );
    return { pid: reply.pid };
  }

  async delete(ref: ProcessRef): Promise<DeleteView> {
    const r = await this.call<unknown, task.v2.DeleteResponse>(
      'Delete',
      new pb.DeleteRequest({ id: ref.id, exec_id: ref.execId }),
    );
    return { pid: r.pid, exitStatus: r.exit_status, exitedAt: toDate(r.exited_at, r.has_exited_at) };
  }

  async exec(i: ExecInput): Promise<void> {
    await this.call(
      'Exec',
      new pb.ExecProcessRequest({
        id: i.id,
        exec_id: i.execId,
        terminal: i.terminal,
        stdin: i.stdin,
        stdout: i.stdout,
        stderr: i.stderr,
        spec: toAny(i.spec),
      }),
    );
  }

  async state(ref: ProcessRef): Promise<StateView> {
    const r = await this.call<unknown, task.v2.StateResponse>(
      'State',
      new pb.StateRequest({ id: ref.id, exec_id: ref.execId }),
    );
    return {
      id: r.id,
      execId: r.exec_id,
      bundle: r.bundle,
      pid: r.pid,
      status: STATUS_NAMES[r.status] ?? 'stopped',
      stdin: r.stdin,
      stdout: r.stdout,
      stderr: r.stderr,
      terminal: r.terminal,
      exitStatus: r.exit_status,
      exitedAt: toDate(r.exited_at, r.has_exited_at),
    };
  }

  async wait(ref: ProcessRef): Promise<ExitView> {
    const r = await this.call<unknown, task.v2.WaitResponse>(
      'Wait',
      new pb.WaitRequest({ id: ref.id, exec_id: ref.execId }),
    );
    return { exitStatus: r.exit_status, exitedAt: toDate(r.exited_at, r.has_exited_at) };
  }

  async kill(i: KillInput): Promise<void> {
    await this.call('Kill', new pb.KillRequest({ id: i.id, exec_id: i.execId, signal: i.signal, all: i.all }));
  }

  async pause(id: string): Promise<void> {
    await this.call('Pause', new pb.PauseRequest({ id }));
  }

  async resume(id: string): Promise<void> {
    await this.call('Resume', new pb.ResumeRequest({ id }));
  }

  async pids(id: string): Promise<PidView[]> {
    const r = await this.call<unknown, task.v2.PidsResponse>('Pids', new pb.PidsRequest({ id }));
    return r.processes.map((p) => ({
      pid: p.pid,
      execId:
        p.has_info && p.info.type_url === PROCESS_DETAILS_TYPE_URL
          ? skiff.v1.ProcessDetails.deserialize(p.info.value).exec_id
          : undefined,
    }));
  }

  async closeIO(ref: ProcessRef & { stdin: boolean }): Promise<void> {
    await this.call('CloseIO', new pb.CloseIORequest({ id: ref.id, exec_id: ref.execId, stdin: ref.stdin }));
  }

  async resizePty(i: ResizeInput): Promise<void> {
    await this.call(
      'ResizePty',
      new pb.ResizePtyRequest({ id: i.id, exec_id: i.execId, width: i.width, height: i.height }),
    );
  }

  async update(i: UpdateInput): Promise<void> {
    await this.call(
      'Update',
      new pb.UpdateTaskRequest({ id: i.id, resources: toAny(i.resources), annotations: new Map(i.annotations) }),
    );
  }

  async stats(id: string): Promise<StatsView> {
    const r = await this.call<unknown, task.v2.StatsResponse>('Stats', new pb.StatsRequest({ id }));
    const s = skiff.v1.TaskStats.deserialize(r.stats.value);
    return {
      cpuUsageNs: s.cpu_usage_ns,
      cpuUserNs: s.cpu_user_ns,
      cpuSystemNs: s.cpu_system_ns,
      memoryRssBytes: s.memory_rss_bytes,
      memoryUsageBytes: s.memory_usage_bytes,
      memoryLimitBytes: s.memory_limit_bytes,
      pidsCurrent: s.pids_current,
      pidsLimit: s.pids_limit,
      runtime: s.runtime,
    };
  }

  async checkpoint(i: { id: string; path: string }): Promise<void> {
    await this.call('Checkpoint', new pb.CheckpointTaskRequest({ id: i.id, path: i.path }));
  }

  async connect(id: string): Promise<ConnectView> {
    const r = await this.call<unknown, task.v2.ConnectResponse>('Connect', new pb.ConnectRequest({ id }));
    return { shimPid: r.shim_pid, taskPid: r.task_pid, version: r.version };
  }

  async shutdown(i: { id: string; now: boolean }): Promise<void> {
    await this.call('Shutdown', new pb.ShutdownRequest({ id: i.id, now: i.now }));
  }

  close(): void {
    this.transport.close();
  }
}

import type * as pb_1 from 'google-protobuf';
import '../proto-length-bounds';
import {
  ConnectView,
  CreateTaskInput,
  DeleteView,
  ExecInput,
  ExitView,
  KillInput,
  PidView,
  ProcessRef,
  ResizeInput,
  ShutdownInput,
  StateView,
  StatsView,
  UpdateInput,
  CheckpointInput,
} from '../../../../application/shim/task/task-messages';
import { google as emptyPb } from '../proto/generated/google/protobuf/empty';
import { task } from '../proto/generated/task/v2/shim';
import { types as mountPb } from '../proto/generated/types/mount';
import { v1 } from '../proto/generated/v1/types/task';
import { fromProtoStatus, toProtoStatus } from './process-status';
import { fromAny, fromTimestamp, toAny, toTimestamp } from './proto-values';
import { execIdOf, PayloadFlavour, processInfo, statsOf, statsPayload } from './task-payloads';

const pb = task.v2;
const Empty = emptyPb.protobuf.Empty;

export type TaskMethodName = keyof typeof pb.UnimplementedTaskService.definition;

/**
 * One task.v2.Task method between its messages and the service's views, both ways: a
 * client encodes the request and decodes the reply, a server decodes the request and
 * encodes the reply. Bytes are the messages as serialized on either transport.
 */
export interface MethodCodec<In, Out, Res extends WireMessage = WireMessage> {
  readonly method: TaskMethodName;
  encodeRequest(input: In): Buffer;
  decodeRequest(bytes: Buffer): In;
  encodeReply(output: Out): Buffer;
  decodeReply(bytes: Buffer): Out;
  /** The reply message itself, which `skiff task --json` prints by its field names. */
  replyMessage(output: Out): Res;
}

/** A generated message: serialized by the definition, printed by its toObject(). */
type WireMessage = pb_1.Message & { toObject(): object };

/** One direction pair: a view to its message and back. */
interface Mapping<V, M> {
  toMessage(view: V): M;
  fromMessage(message: M): V;
}

function method<In, Out, Req extends pb_1.Message, Res extends WireMessage>(
  name: TaskMethodName,
  request: Mapping<In, Req>,
  reply: Mapping<Out, Res>,
): MethodCodec<In, Out, Res> {
  const wire = pb.UnimplementedTaskService.definition[name] as unknown as {
    requestSerialize(message: Req): Buffer;
    requestDeserialize(bytes: Buffer): Req;
    responseSerialize(message: Res): Buffer;
    responseDeserialize(bytes: Buffer): Res;
  };
  return {
    method: name,
    encodeRequest: (input) => wire.requestSerialize(request.toMessage(input)),
    decodeRequest: (bytes) => request.fromMessage(wire.requestDeserialize(bytes)),
    encodeReply: (output) => wire.responseSerialize(reply.toMessage(output)),
    decodeReply: (bytes) => reply.fromMessage(wire.responseDeserialize(bytes)),
    replyMessage: (output) => reply.toMessage(output),
  };
}

/** google.protobuf.Empty: the reply of every method that answers nothing. */
const NOTHING: Mapping<void, emptyPb.protobuf.Empty> = {
  toMessage: () => new Empty(),
  fromMessage: () => undefined,
};

type IdRequest = { id: string };
/** A request that names a task only (Pause, Resume, Pids, Stats, Connect). */
function byId<M extends pb_1.Message & IdRequest>(Message: new (data: IdRequest) => M): Mapping<string, M> {
  return { toMessage: (id) => new Message({ id }), fromMessage: (r) => r.id };
}

type RefRequest = { id: string; exec_id: string };
/** A request that names a process: the task id and the exec id ('' for the init). */
function byRef<M extends pb_1.Message & RefRequest>(Message: new (data: RefRequest) => M): Mapping<ProcessRef, M> {
  return {
    toMessage: (ref) => new Message({ id: ref.id, exec_id: ref.execId }),
    fromMessage: (r) => ({ id: r.id, execId: r.exec_id }),
  };
}

/**
 * The codec of every task.v2.Task method. `flavour` chooses the Any payloads of the Pids
 * and Stats replies (task-payloads.ts); everything else is the same for every reader.
 */
function makeTaskCodec(flavour: PayloadFlavour) {
  return {
    Create: method<CreateTaskInput, { pid: number }, task.v2.CreateTaskRequest, task.v2.CreateTaskResponse>(
      'Create',
      {
        toMessage: (i) =>
          new pb.CreateTaskRequest({
            id: i.id,
            bundle: i.bundle,
            terminal: i.terminal,
            stdin: i.stdin,
            stdout: i.stdout,
            stderr: i.stderr,
            checkpoint: i.checkpoint,
            parent_checkpoint: i.parentCheckpoint,
            rootfs: i.rootfs.map(
              (m) => new mountPb.Mount({ type: m.type, source: m.source, target: m.target, options: [...m.options] }),
            ),
            options: toAny(i.options),
          }),
        fromMessage: (r) => ({
          id: r.id,
          bundle: r.bundle,
          rootfs: r.rootfs.map((m) => ({ type: m.type, source: m.source, target: m.target, options: m.options })),
          terminal: r.terminal,
          stdin: r.stdin,
          stdout: r.stdout,
          stderr: r.stderr,
          checkpoint: r.checkpoint,
          parentCheckpoint: r.parent_checkpoint,
          options: fromAny(r.options, r.has_options),
        }),
      },
      {
        toMessage: ({ pid }) => new pb.CreateTaskResponse({ pid }),
        fromMessage: (r) => ({ pid: r.pid }),
      },
    ),
    Start: method('Start', byRef(pb.StartRequest), {
      toMessage: ({ pid }: { pid: number }) => new pb.StartResponse({ pid }),
      fromMessage: (r: task.v2.StartResponse) => ({ pid: r.pid }),
    }),
    Delete: method('Delete', byRef(pb.DeleteRequest), {
      toMessage: (d: DeleteView) =>
        new pb.DeleteResponse({ pid: d.pid, exit_status: d.exitStatus, exited_at: toTimestamp(d.exitedAt) }),
      fromMessage: (r: task.v2.DeleteResponse) => ({
        pid: r.pid,
        exitStatus: r.exit_status,
        exitedAt: fromTimestamp(r.exited_at, r.has_exited_at),
      }),
    }),
    Exec: method(
      'Exec',
      {
        toMessage: (i: ExecInput) =>
          new pb.ExecProcessRequest({
            id: i.id,
            exec_id: i.execId,
            terminal: i.terminal,
            stdin: i.stdin,
            stdout: i.stdout,
            stderr: i.stderr,
            spec: toAny(i.spec),
          }),
        fromMessage: (r: task.v2.ExecProcessRequest): ExecInput => ({
          id: r.id,
          execId: r.exec_id,
          terminal: r.terminal,
          stdin: r.stdin,
          stdout: r.stdout,
          stderr: r.stderr,
          spec: fromAny(r.spec, r.has_spec),
        }),
      },
      NOTHING,
    ),
    State: method('State', byRef(pb.StateRequest), {
      toMessage: (s: StateView) =>
        new pb.StateResponse({
          id: s.id,
          exec_id: s.execId,
          bundle: s.bundle,
          pid: s.pid,
          status: toProtoStatus(s.status),
          stdin: s.stdin,
          stdout: s.stdout,
          stderr: s.stderr,
          terminal: s.terminal,
          exit_status: s.exitStatus,
          exited_at: toTimestamp(s.exitedAt),
        }),
      fromMessage: (r: task.v2.StateResponse): StateView => ({
        id: r.id,
        execId: r.exec_id,
        bundle: r.bundle,
        pid: r.pid,
        status: fromProtoStatus(r.status),
        stdin: r.stdin,
        stdout: r.stdout,
        stderr: r.stderr,
        terminal: r.terminal,
        exitStatus: r.exit_status,
        exitedAt: fromTimestamp(r.exited_at, r.has_exited_at),
      }),
    }),
    Wait: method('Wait', byRef(pb.WaitRequest), {
      toMessage: (e: ExitView) =>
        new pb.WaitResponse({ exit_status: e.exitStatus, exited_at: toTimestamp(e.exitedAt) }),
      fromMessage: (r: task.v2.WaitResponse): ExitView => ({
        exitStatus: r.exit_status,
        exitedAt: fromTimestamp(r.exited_at, r.has_exited_at),
      }),
    }),
    Kill: method(
      'Kill',
      {
        toMessage: (i: KillInput) => new pb.KillRequest({ id: i.id, exec_id: i.execId, signal: i.signal, all: i.all }),
        fromMessage: (r: task.v2.KillRequest): KillInput => ({
          id: r.id,
          execId: r.exec_id,
          signal: r.signal,
          all: r.all,
        }),
      },
      NOTHING,
    ),
    Pause: method('Pause', byId(pb.PauseRequest), NOTHING),
    Resume: method('Resume', byId(pb.ResumeRequest), NOTHING),
    Pids: method('Pids', byId(pb.PidsRequest), {
      toMessage: (pids: PidView[]) =>
        new pb.PidsResponse({
          processes: pids.map(({ pid, execId }) => {
            const info = processInfo(flavour, execId);
            return new v1.types.ProcessInfo({ pid, info: toAny(info) });
          }),
        }),
      fromMessage: (r: task.v2.PidsResponse): PidView[] =>
        r.processes.map((p) => ({ pid: p.pid, execId: execIdOf(fromAny(p.info, p.has_info)) })),
    }),
    CloseIO: method(
      'CloseIO',
      {
        toMessage: (ref: ProcessRef & { stdin: boolean }) =>
          new pb.CloseIORequest({ id: ref.id, exec_id: ref.execId, stdin: ref.stdin }),
        fromMessage: (r: task.v2.CloseIORequest) => ({ id: r.id, execId: r.exec_id, stdin: r.stdin }),
      },
      NOTHING,
    ),
    ResizePty: method(
      'ResizePty',
      {
        toMessage: (i: ResizeInput) =>
          new pb.ResizePtyRequest({ id: i.id, exec_id: i.execId, width: i.width, height: i.height }),
        fromMessage: (r: task.v2.ResizePtyRequest): ResizeInput => ({
          id: r.id,
          execId: r.exec_id,
          width: r.width,
          height: r.height,
        }),
      },
      NOTHING,
    ),
    Update: method(
      'Update',
      {
        toMessage: (i: UpdateInput) =>
          new pb.UpdateTaskRequest({ id: i.id, resources: toAny(i.resources), annotations: new Map(i.annotations) }),
        fromMessage: (r: task.v2.UpdateTaskRequest): UpdateInput => ({
          id: r.id,
          resources: fromAny(r.resources, r.has_resources),
          annotations: r.annotations,
        }),
      },
      NOTHING,
    ),
    Stats: method('Stats', byId(pb.StatsRequest), {
      toMessage: (s: StatsView) => new pb.StatsResponse({ stats: toAny(statsPayload(flavour, s)) }),
      fromMessage: (r: task.v2.StatsResponse): StatsView =>
        statsOf(fromAny(r.stats, r.has_stats) ?? { typeUrl: '', value: new Uint8Array() }),
    }),
    Checkpoint: method(
      'Checkpoint',
      {
        toMessage: (i: CheckpointInput) =>
          new pb.CheckpointTaskRequest({
            id: i.id,
            path: i.path,
            ...(i.options === undefined ? {} : { options: toAny(i.options) }),
          }),
        fromMessage: (r: task.v2.CheckpointTaskRequest): CheckpointInput => ({
          id: r.id,
          path: r.path,
          options: fromAny(r.options, r.has_options),
        }),
      },
      NOTHING,
    ),
    Connect: method('Connect', byId(pb.ConnectRequest), {
      toMessage: (c: ConnectView) =>
        new pb.ConnectResponse({ shim_pid: c.shimPid, task_pid: c.taskPid, version: c.version }),
      fromMessage: (r: task.v2.ConnectResponse): ConnectView => ({
        shimPid: r.shim_pid,
        taskPid: r.task_pid,
        version: r.version,
      }),
    }),
    Shutdown: method(
      'Shutdown',
      {
        toMessage: (i: ShutdownInput) => new pb.ShutdownRequest({ id: i.id, now: i.now }),
        fromMessage: (r: task.v2.ShutdownRequest): ShutdownInput => ({ id: r.id, now: r.now }),
      },
      NOTHING,
    ),
  };
}

export type TaskCodec = ReturnType<typeof makeTaskCodec>;

const CODECS: Partial<Record<PayloadFlavour, TaskCodec>> = {};

/** The task service's codec for the readers of `flavour` (skiff's own clients by default). */
export function taskCodec(flavour: PayloadFlavour = 'skiff'): TaskCodec {
  return (CODECS[flavour] ??= makeTaskCodec(flavour));
}

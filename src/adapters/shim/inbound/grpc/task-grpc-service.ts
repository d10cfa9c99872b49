import { sendUnaryData, ServerUnaryCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { TaskService } from '../../../../application/shim/task/task-service';
import { google as emptyPb } from '../../../../infrastructure/proto/generated/google/protobuf/empty';
import { skiff } from '../../../../infrastructure/proto/generated/skiff/v1/skiff';
import { task } from '../../../../infrastructure/proto/generated/task/v2/shim';
import { v1 } from '../../../../infrastructure/proto/generated/v1/types/task';
import { InvalidArgumentError } from '../../../../domain/shared/errors';
import { MalformedRequest } from './malformed-request';
import { fromAny, toAny, toProtoStatus, toTimestamp } from './proto-mapping';
import { toGrpcStatus } from './to-grpc-status';

const pb = task.v2;
const EMPTY = new emptyPb.protobuf.Empty();
export const TASK_STATS_TYPE_URL = 'skiff.v1.TaskStats';
export const PROCESS_DETAILS_TYPE_URL = 'skiff.v1.ProcessDetails';

/** Adapts one handler: request in, reply or mapped status out. Handlers run concurrently. */
function unary<Req, Res>(handle: (request: Req) => Res | Promise<Res>) {
  return (call: ServerUnaryCall<Req | MalformedRequest, Res>, callback: sendUnaryData<Res>): void => {
    const request = call.request;
    Promise.resolve()
      .then(() => {
        if (request instanceof MalformedRequest) {
          throw new InvalidArgumentError(`malformed ${request.method} request: ${request.reason}`, 'GRPC.MALFORMED');
        }
        return handle(request);
      })
      .then(
        (reply) => callback(null, reply),
        (err: unknown) => callback(toGrpcStatus(err)),
      );
  };
}

/** task.v2.Task handlers: proto message -> TaskService call -> proto reply, nothing else. */
export function taskGrpcHandlers(service: TaskService): UntypedServiceImplementation {
  return {
    Create: unary(async (r: task.v2.CreateTaskRequest) => {
      const rootfs = r.rootfs.map((m) => ({ type: m.type, source: m.source, target: m.target, options: m.options }));
      const { pid } = await service.create({
        id: r.id,
        bundle: r.bundle,
        rootfs,
        terminal: r.terminal,
        stdin: r.stdin,
        stdout: r.stdout,
        stderr: r.stderr,
        checkpoint: r.checkpoint,
        parentCheckpoint: r.parent_checkpoint,
      });
      return new pb.CreateTaskResponse({ pid });
    }),
    Start: unary(
      async (r: task.v2.StartRequest) => new pb.StartResponse(await service.start({ id: r.id, execId: r.exec_id })),
    ),
    Delete: unary(async (r: task.v2.DeleteRequest) => {
      const view = await service.delete({ id: r.id, execId: r.exec_id });
      return new pb.DeleteResponse({
        pid: view.pid,
        exit_status: view.exitStatus,
        exited_at: toTimestamp(view.exitedAt),
      });
    }),
    Exec: unary(async (r: task.v2.ExecProcessRequest) => {
      await service.exec({
        id: r.id,
        execId: r.exec_id,
        terminal: r.terminal,
        stdin: r.stdin,
        stdout: r.stdout,
        stderr: r.stderr,
        spec: fromAny(r.spec, r.has_spec),
      });
      return EMPTY;
    }),
    State: unary((r: task.v2.StateRequest) => {
      const s = service.state({ id: r.id, execId: r.exec_id });
      return new pb.StateResponse({
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
      });
    }),
    Wait: unary(async (r: task.v2.WaitRequest) => {
      const exit = await service.wait({ id: r.id, execId: r.exec_id });
      return new pb.WaitResponse({ exit_status: exit.exitStatus, exited_at: toTimestamp(exit.exitedAt) });
    }),
    Kill: unary(async (r: task.v2.KillRequest) => {
      await service.kill({ id: r.id, execId: r.exec_id, signal: r.signal, all: r.all });
      return EMPTY;
    }),
    Pause: unary(async (r: task.v2.PauseRequest) => (await service.pause(r.id), EMPTY)),
    Resume: unary(async (r: task.v2.ResumeRequest) => (await service.resume(r.id), EMPTY)),
    Pids: unary(async (r: task.v2.PidsRequest) => {
      const processes = (await service.pids(r.id)).map(({ pid, execId }) => {
        const info =
          execId === undefined
            ? undefined
            : toAny(PROCESS_DETAILS_TYPE_URL, new skiff.v1.ProcessDetails({ exec_id: execId }).serialize());
        return new v1.types.ProcessInfo({ pid, info });
      });
      return new pb.PidsResponse({ processes });
    }),
    CloseIO: unary(async (r: task.v2.CloseIORequest) => {
      await service.closeIO({ id: r.id, execId: r.exec_id, stdin: r.stdin });
      return EMPTY;
    }),
    ResizePty: unary(async (r: task.v2.ResizePtyRequest) => {
      await service.resizePty({ id: r.id, execId: r.exec_id, width: r.width, height: r.height });
      return EMPTY;
    }),
    Update: unary(async (r: task.v2.UpdateTaskRequest) => {
      await service.update({ id: r.id, resources: fromAny(r.resources, r.has_resources), annotations: r.annotations });
      return EMPTY;
    }),
    Stats: unary(async (r: task.v2.StatsRequest) => {
      const s = await service.stats(r.id);
      const stats = new skiff.v1.TaskStats({
        cpu_usage_ns: s.cpuUsageNs,
        cpu_user_ns: s.cpuUserNs,
        cpu_system_ns: s.cpuSystemNs,
        memory_rss_bytes: s.memoryRssBytes,
        memory_usage_bytes: s.memoryUsageBytes,
        memory_limit_bytes: s.memoryLimitBytes,
        pids_current: s.pidsCurrent,
        pids_limit: s.pidsLimit,
        runtime: s.runtime,
      });
      return new pb.StatsResponse({ stats: toAny(TASK_STATS_TYPE_URL, stats.serialize()) });
    }),
    Checkpoint: unary(async (r: task.v2.CheckpointTaskRequest) => {
      await service.checkpoint({ id: r.id, path: r.path });
      return EMPTY;
    }),
    Connect: unary((r: task.v2.ConnectRequest) => {
      const c = service.connect(r.id);
      return new pb.ConnectResponse({ shim_pid: c.shimPid, task_pid: c.taskPid, version: c.version });
    }),
    Shutdown: unary(async (r: task.v2.ShutdownRequest) => (await service.shutdown({ id: r.id, now: r.now }), EMPTY)),
  };
}

import { TaskService } from '../../../../application/shim/task/task-service';
import '../../helpers/proto-string-bounds';
import { google as emptyPb } from '../../helpers/proto/generated/google/protobuf/empty';
import { skiff } from '../../helpers/proto/generated/skiff/v1/skiff';
import { task } from '../../helpers/proto/generated/task/v2/shim';
import { v1 } from '../../helpers/proto/generated/v1/types/task';
import { InvalidArgumentError } from '../../../../domain/shared/errors';
import { PROCESS_DETAILS_TYPE_URL, TASK_STATS_TYPE_URL } from '../../helpers/type-urls';
import { fromAny, toAny, toProtoStatus, toTimestamp } from '../../helpers/proto-mapping';

const pb = task.v2;
const EMPTY = new emptyPb.protobuf.Empty();

/**
 * One task.v2.Task method, transport-neutral: request bytes in, reply bytes out. A
 * rejection carries the error as thrown; each transport maps it with toRpcStatus.
 */
export type TaskHandler = (request: Buffer) => Promise<Buffer>;

/** The handlers by bare method name (`Create`), as gRPC's path and ttrpc's Request.method name them. */
export type TaskHandlers = ReadonlyMap<string, TaskHandler>;

export type TaskMethodName = keyof typeof pb.UnimplementedTaskService.definition;

/**
 * Adapts one handler: decode, call, encode. Bytes that do not decode are malformed
 * input, INVALID_ARGUMENT by the contract (not the transport's own INTERNAL). Calls
 * run concurrently: a Wait never holds back the calls after it.
 */
export function unary<Req, Res>(
  method: TaskMethodName,
  handle: (request: Req) => Res | Promise<Res>,
): [string, TaskHandler] {
  const { requestDeserialize, responseSerialize } = pb.UnimplementedTaskService.definition[method] as unknown as {
    requestDeserialize: (bytes: Buffer) => Req;
    responseSerialize: (reply: Res) => Buffer;
  };
  const handler = async (bytes: Buffer): Promise<Buffer> => {
    let request: Req;
    try {
      request = requestDeserialize(bytes);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new InvalidArgumentError(`malformed ${method} request: ${reason}`, 'RPC.MALFORMED');
    }
    return responseSerialize(await handle(request));
  };
  return [method, handler];
}

/** task.v2.Task handlers: proto message -> TaskService call -> proto reply, nothing else. */
export function taskHandlers(service: TaskService): TaskHandlers {
  return new Map([
    unary('Create', async (r: task.v2.CreateTaskRequest) => {
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
        options: fromAny(r.options, r.has_options),
      });
      return new pb.CreateTaskResponse({ pid });
    }),
    unary(
      'Start',
      async (r: task.v2.StartRequest) => new pb.StartResponse(await service.start({ id: r.id, execId: r.exec_id })),
    ),
    unary('Delete', async (r: task.v2.DeleteRequest) => {
      const view = await service.delete({ id: r.id, execId: r.exec_id });
      return new pb.DeleteResponse({
        pid: view.pid,
        exit_status: view.exitStatus,
        exited_at: toTimestamp(view.exitedAt),
      });
    }),
    unary('Exec', async (r: task.v2.ExecProcessRequest) => {
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
    unary('State', (r: task.v2.StateRequest) => {
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
    unary('Wait', async (r: task.v2.WaitRequest) => {
      const exit = await service.wait({ id: r.id, execId: r.exec_id });
      return new pb.WaitResponse({ exit_status: exit.exitStatus, exited_at: toTimestamp(exit.exitedAt) });
    }),
    unary('Kill', async (r: task.v2.KillRequest) => {
      await service.kill({ id: r.id, execId: r.exec_id, signal: r.signal, all: r.all });
      return EMPTY;
    }),
    unary('Pause', async (r: task.v2.PauseRequest) => (await service.pause(r.id), EMPTY)),
    unary('Resume', async (r: task.v2.ResumeRequest) => (await service.resume(r.id), EMPTY)),
    unary('Pids', async (r: task.v2.PidsRequest) => {
      const processes = (await service.pids(r.id)).map(({ pid, execId }) => {
        const info =
          execId === undefined
            ? undefined
            : toAny(PROCESS_DETAILS_TYPE_URL, new skiff.v1.ProcessDetails({ exec_id: execId }).serialize());
        return new v1.types.ProcessInfo({ pid, info });
      });
      return new pb.PidsResponse({ processes });
    }),
    unary('CloseIO', async (r: task.v2.CloseIORequest) => {
      await service.closeIO({ id: r.id, execId: r.exec_id, stdin: r.stdin });
      return EMPTY;
    }),
    unary('ResizePty', async (r: task.v2.ResizePtyRequest) => {
      await service.resizePty({ id: r.id, execId: r.exec_id, width: r.width, height: r.height });
      return EMPTY;
    }),
    unary('Update', async (r: task.v2.UpdateTaskRequest) => {
      await service.update({ id: r.id, resources: fromAny(r.resources, r.has_resources), annotations: r.annotations });
      return EMPTY;
    }),
    unary('Stats', async (r: task.v2.StatsRequest) => {
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
    unary('Checkpoint', async (r: task.v2.CheckpointTaskRequest) => {
      await service.checkpoint({ id: r.id, path: r.path });
      return EMPTY;
    }),
    unary('Connect', (r: task.v2.ConnectRequest) => {
      const c = service.connect(r.id);
      return new pb.ConnectResponse({ shim_pid: c.shimPid, task_pid: c.taskPid, version: c.version });
    }),
    unary('Shutdown', async (r: task.v2.ShutdownRequest) => (await service.shutdown({ id: r.id, now: r.now }), EMPTY)),
  ]);
}

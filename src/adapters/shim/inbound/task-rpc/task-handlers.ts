import { TaskService } from '../../../../application/shim/task/task-service';
import { InvalidArgumentError } from '../../../../domain/shared/errors';
import { MethodCodec, TaskCodec, taskCodec } from '../../wire/codec/task-codec';

/**
 * One task.v2.Task method, transport-neutral: request bytes in, reply bytes out. A
 * rejection carries the error as thrown; each transport maps it with toRpcStatus.
 */
export type TaskHandler = (request: Buffer) => Promise<Buffer>;

/** The handlers by bare method name (`Create`), as gRPC's path and ttrpc's Request.method name them. */
export type TaskHandlers = ReadonlyMap<string, TaskHandler>;

/**
 * Adapts one service call: decode, call, encode. Bytes that do not decode are malformed
 * input, INVALID_ARGUMENT by the contract (not the transport's own INTERNAL). Calls
 * run concurrently: a Wait never holds back the calls after it.
 */
function unary<In, Out>(codec: MethodCodec<In, Out>, call: (input: In) => Out | Promise<Out>): [string, TaskHandler] {
  const handler = async (bytes: Buffer): Promise<Buffer> => {
    let input: In;
    try {
      input = codec.decodeRequest(bytes);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new InvalidArgumentError(`malformed ${codec.method} request: ${reason}`, 'RPC.MALFORMED');
    }
    return codec.encodeReply(await call(input));
  };
  return [codec.method, handler];
}

/**
 * task.v2.Task handlers: each method's request, as the codec reads it, to its TaskService
 * call, and the result back through the codec; nothing else. containerd's serving process
 * passes taskCodec('containerd'), whose Pids and Stats payloads `ctr` decodes.
 */
export function taskHandlers(service: TaskService, codec: TaskCodec = taskCodec()): TaskHandlers {
  return new Map([
    unary(codec.Create, (i) => service.create(i)),
    unary(codec.Start, (ref) => service.start(ref)),
    unary(codec.Delete, (ref) => service.delete(ref)),
    unary(codec.Exec, (i) => service.exec(i)),
    unary(codec.State, (ref) => service.state(ref)),
    unary(codec.Wait, (ref) => service.wait(ref)),
    unary(codec.Kill, (i) => service.kill(i)),
    unary(codec.Pause, (id) => service.pause(id)),
    unary(codec.Resume, (id) => service.resume(id)),
    unary(codec.Pids, (id) => service.pids(id)),
    unary(codec.CloseIO, (ref) => service.closeIO(ref)),
    unary(codec.ResizePty, (i) => service.resizePty(i)),
    unary(codec.Update, (i) => service.update(i)),
    unary(codec.Stats, (id) => service.stats(id)),
    unary(codec.Checkpoint, (i) => service.checkpoint(i)),
    unary(codec.Connect, (id) => service.connect(id)),
    unary(codec.Shutdown, (i) => service.shutdown(i)),
  ]);
}

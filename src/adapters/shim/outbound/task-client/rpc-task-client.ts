import { TaskClient } from '../../../../application/shim/ports/task-client.port';
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
  StateView,
  StatsView,
  UpdateInput,
  CheckpointInput,
} from '../../../../application/shim/task/task-messages';
import { MethodCodec, taskCodec, TaskMethodName } from '../../wire/codec/task-codec';
import { fromRpcError, RpcFailure } from './from-rpc-error';

const codec = taskCodec();

/**
 * How one transport carries a unary task.v2.Task call: the bare method name and the
 * serialized request in, the serialized reply out; a failure rejects with its status.
 */
export interface UnaryTransport {
  call(method: TaskMethodName, request: Buffer): Promise<Buffer>;
  close(): void;
}

/** TaskClient over any transport: application views in, task.v2 messages (the codec's) on the wire. */
export class RpcTaskClient implements TaskClient {
  constructor(
    private readonly transport: UnaryTransport,
    private readonly address: string,
  ) {}

  private async call<In, Out>(method: MethodCodec<In, Out>, input: In): Promise<Out> {
    let reply: Buffer;
    try {
      reply = await this.transport.call(method.method, method.encodeRequest(input));
    } catch (err) {
      throw fromRpcError(err as RpcFailure, this.address);
    }
    return method.decodeReply(reply);
  }

  create(i: CreateTaskInput): Promise<{ pid: number }> {
    return this.call(codec.Create, i);
  }

  start(ref: ProcessRef): Promise<{ pid: number }> {
    return this.call(codec.Start, ref);
  }

  delete(ref: ProcessRef): Promise<DeleteView> {
    return this.call(codec.Delete, ref);
  }

  exec(i: ExecInput): Promise<void> {
    return this.call(codec.Exec, i);
  }

  state(ref: ProcessRef): Promise<StateView> {
    return this.call(codec.State, ref);
  }

  wait(ref: ProcessRef): Promise<ExitView> {
    return this.call(codec.Wait, ref);
  }

  kill(i: KillInput): Promise<void> {
    return this.call(codec.Kill, i);
  }

  pause(id: string): Promise<void> {
    return this.call(codec.Pause, id);
  }

  resume(id: string): Promise<void> {
    return this.call(codec.Resume, id);
  }

  pids(id: string): Promise<PidView[]> {
    return this.call(codec.Pids, id);
  }

  closeIO(ref: ProcessRef & { stdin: boolean }): Promise<void> {
    return this.call(codec.CloseIO, ref);
  }

  resizePty(i: ResizeInput): Promise<void> {
    return this.call(codec.ResizePty, i);
  }

  update(i: UpdateInput): Promise<void> {
    return this.call(codec.Update, i);
  }

  stats(id: string): Promise<StatsView> {
    return this.call(codec.Stats, id);
  }

  checkpoint(i: CheckpointInput): Promise<void> {
    return this.call(codec.Checkpoint, i);
  }

  connect(id: string): Promise<ConnectView> {
    return this.call(codec.Connect, id);
  }

  shutdown(i: { id: string; now: boolean }): Promise<void> {
    return this.call(codec.Shutdown, i);
  }

  close(): void {
    this.transport.close();
  }
}

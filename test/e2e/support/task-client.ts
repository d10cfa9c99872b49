import { credentials, Metadata, ServiceError } from '@grpc/grpc-js';
import { google as anyPb } from '../../../src/infrastructure/proto/generated/google/protobuf/any';
import { task } from '../../../src/infrastructure/proto/generated/task/v2/shim';

const pb = task.v2;
type Client = InstanceType<typeof pb.TaskClient>;

/** A raw task.v2 client over the socket (generated stubs only: no skiff client code). */
export class TaskTestClient {
  readonly raw: Client;

  constructor(readonly socketPath: string) {
    this.raw = new pb.TaskClient(`unix:${socketPath}`, credentials.createInsecure());
  }

  call<Req, Res>(method: keyof Client & string, request: Req): Promise<Res> {
    return new Promise((resolve, reject) => {
      const fn = this.raw[method] as unknown as (
        req: Req,
        md: Metadata,
        cb: (err: ServiceError | null, res: Res) => void,
      ) => void;
      fn.call(this.raw, request, new Metadata(), (err, res) => (err ? reject(err) : resolve(res)));
    });
  }

  create(fields: ConstructorParameters<typeof pb.CreateTaskRequest>[0]) {
    return this.call<task.v2.CreateTaskRequest, task.v2.CreateTaskResponse>('Create', new pb.CreateTaskRequest(fields));
  }
  start(id: string, exec_id = '') {
    return this.call<task.v2.StartRequest, task.v2.StartResponse>('Start', new pb.StartRequest({ id, exec_id }));
  }
  state(id: string, exec_id = '') {
    return this.call<task.v2.StateRequest, task.v2.StateResponse>('State', new pb.StateRequest({ id, exec_id }));
  }
  wait(id: string, exec_id = '') {
    return this.call<task.v2.WaitRequest, task.v2.WaitResponse>('Wait', new pb.WaitRequest({ id, exec_id }));
  }
  delete(id: string, exec_id = '') {
    return this.call<task.v2.DeleteRequest, task.v2.DeleteResponse>('Delete', new pb.DeleteRequest({ id, exec_id }));
  }
  kill(id: string, signal: number, opts: { exec_id?: string; all?: boolean } = {}) {
    return this.call('Kill', new pb.KillRequest({ id, signal, ...opts }));
  }
  exec(
    id: string,
    exec_id: string,
    process: unknown,
    stdio: { stdin?: string; stdout?: string; stderr?: string; terminal?: boolean } = {},
  ) {
    const spec = new anyPb.protobuf.Any({
      type_url: 'types.containerd.io/opencontainers/runtime-spec/1/Process',
      value: new TextEncoder().encode(JSON.stringify(process)),
    });
    return this.call('Exec', new pb.ExecProcessRequest({ id, exec_id, spec, ...stdio }));
  }
  pause(id: string) {
    return this.call('Pause', new pb.PauseRequest({ id }));
  }
  resume(id: string) {
    return this.call('Resume', new pb.ResumeRequest({ id }));
  }
  pids(id: string) {
    return this.call<task.v2.PidsRequest, task.v2.PidsResponse>('Pids', new pb.PidsRequest({ id }));
  }
  closeIO(id: string, exec_id = '') {
    return this.call('CloseIO', new pb.CloseIORequest({ id, exec_id, stdin: true }));
  }
  resizePty(id: string, width: number, height: number, exec_id = '') {
    return this.call('ResizePty', new pb.ResizePtyRequest({ id, exec_id, width, height }));
  }
  update(id: string, resources?: unknown) {
    const any =
      resources === undefined
        ? undefined
        : new anyPb.protobuf.Any({
            type_url: 'types.containerd.io/opencontainers/runtime-spec/1/LinuxResources',
            value: new TextEncoder().encode(JSON.stringify(resources)),
          });
    return this.call('Update', new pb.UpdateTaskRequest({ id, resources: any }));
  }
  stats(id: string) {
    return this.call<task.v2.StatsRequest, task.v2.StatsResponse>('Stats', new pb.StatsRequest({ id }));
  }
  checkpoint(id: string, path: string) {
    return this.call('Checkpoint', new pb.CheckpointTaskRequest({ id, path }));
  }
  connect(id: string) {
    return this.call<task.v2.ConnectRequest, task.v2.ConnectResponse>('Connect', new pb.ConnectRequest({ id }));
  }
  shutdown(id: string, now = false) {
    return this.call('Shutdown', new pb.ShutdownRequest({ id, now }));
  }

  close(): void {
    this.raw.close();
  }
}

/** The gRPC status code a rejected call carried. */
export async function codeOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (err) {
    return (err as ServiceError).code;
  }
  throw new Error('expected the call to fail');
}

export async function errorOf(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error('expected the call to fail');
}

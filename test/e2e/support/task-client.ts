import { Client, credentials, Metadata, ServiceError, status as Code } from '@grpc/grpc-js';
import { TtrpcClient } from '../../../src/adapters/shim/wire/ttrpc/ttrpc-client';
import { TTRPC_TASK_SERVICE } from '../../../src/adapters/shim/wire/ttrpc/service-names';
import { google as anyPb } from '../../../src/adapters/shim/wire/proto/generated/google/protobuf/any';
import { task } from '../../../src/adapters/shim/wire/proto/generated/task/v2/shim';

const pb = task.v2;
type MethodName = keyof typeof pb.UnimplementedTaskService.definition;

/** How the shim under test serves task.v2.Task. */
export type Transport = 'grpc' | 'ttrpc';

interface Method<Req, Res> {
  requestSerialize(request: Req): Buffer;
  responseDeserialize(bytes: Buffer): Res;
}

/**
 * A raw task.v2 client over the socket. Over gRPC: grpc-js and the generated messages, no skiff
 * client code. Over ttrpc: the generated messages on skiff's ttrpc client, itself held
 * to the wire by test/e2e/shim/ttrpc.test.ts and to containerd's own runc shim.
 * A failed call rejects with `code` and `details` either way.
 */
export class TaskTestClient {
  private readonly grpc: Client | undefined;
  private readonly ttrpc: TtrpcClient | undefined;

  constructor(
    readonly socketPath: string,
    readonly transport: Transport = 'grpc',
  ) {
    if (transport === 'grpc') this.grpc = new Client(`unix:${socketPath}`, credentials.createInsecure());
    else this.ttrpc = new TtrpcClient(socketPath);
  }

  async call<Req, Res>(method: MethodName, request: Req): Promise<Res> {
    const { requestSerialize, responseDeserialize } = pb.UnimplementedTaskService.definition[
      method
    ] as unknown as Method<Req, Res>;
    return responseDeserialize(await this.callBytes(method, requestSerialize(request)));
  }

  /** One call with request bytes as given (malformed ones too); resolves with the reply's bytes. */
  callBytes(method: MethodName, bytes: Buffer): Promise<Buffer> {
    if (this.ttrpc !== undefined) return this.ttrpc.call(TTRPC_TASK_SERVICE, method, bytes);
    const client = this.grpc as Client;
    return new Promise((resolve, reject) => {
      const pass = (b: Buffer) => b;
      client.makeUnaryRequest(
        `/task.v2.Task/${method}`,
        pass,
        pass,
        bytes,
        new Metadata(),
        (err: ServiceError | null, reply?: Buffer) => (err ? reject(err) : resolve(reply as Buffer)),
      );
    });
  }

  /** The status code one call of raw bytes ended with (OK on success). */
  codeOfBytes(method: MethodName, bytes: Buffer): Promise<number> {
    return this.callBytes(method, bytes).then(
      () => Code.OK,
      (err: { code: number }) => err.code,
    );
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
    this.grpc?.close();
    this.ttrpc?.close();
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

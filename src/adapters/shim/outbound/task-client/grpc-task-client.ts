import { Client, credentials, ServiceError } from '@grpc/grpc-js';
import { TaskClient, TaskClientFactory } from '../../../../application/shim/ports/task-client.port';
import { unixPath } from '../../os/unix-address';
import { RpcTaskClient, UnaryTransport } from './rpc-task-client';

const passBytes = (bytes: Buffer): Buffer => bytes;

/** task.v2.Task calls as gRPC unary calls on `unix:<path>` (path /task.v2.Task/<Method>). */
function grpcTransport(address: string): UnaryTransport {
  const client = new Client(`unix:${unixPath(address)}`, credentials.createInsecure());
  return {
    call: (method, request) =>
      new Promise((resolve, reject) => {
        client.makeUnaryRequest(
          `/task.v2.Task/${method}`,
          passBytes,
          passBytes,
          request,
          (err: ServiceError | null, reply?: Buffer) => (err ? reject(err) : resolve(reply as Buffer)),
        );
      }),
    close: () => client.close(),
  };
}

/** TaskClient over gRPC. */
export class GrpcTaskClient extends RpcTaskClient {
  constructor(address: string) {
    super(grpcTransport(address), address);
  }
}

export class GrpcTaskClientFactory implements TaskClientFactory {
  connect(address: string): TaskClient {
    return new GrpcTaskClient(address);
  }
}

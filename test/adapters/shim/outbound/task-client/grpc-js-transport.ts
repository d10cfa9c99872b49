import { Client, credentials, ServiceError } from '@grpc/grpc-js';
import { UnaryTransport } from '../../../../../src/adapters/shim/outbound/task-client/rpc-task-client';
import { unixPath } from '../../../../../src/adapters/shim/os/unix-address';

const passBytes = (bytes: Buffer): Buffer => bytes;

/**
 * task.v2.Task's unary calls through grpc-js (skiff's client before http2-grpc-transport.ts):
 * the reference the node:http2 client is held to, the same calls through both.
 */
export function grpcJsTransport(address: string): UnaryTransport {
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

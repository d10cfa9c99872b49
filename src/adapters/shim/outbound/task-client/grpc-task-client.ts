import { TaskClient, TaskClientFactory } from '../../../../application/shim/ports/task-client.port';
import { http2GrpcTransport } from './http2-grpc-transport';
import { RpcTaskClient } from './rpc-task-client';

/**
 * TaskClient over gRPC, on `node:http2` (http2-grpc-transport.ts): the same wire as a
 * grpc-js client's, without grpc-js's start-up (test/adapters/shim/outbound/task-client/task-client.test.ts
 * runs the same calls through both).
 */
export class GrpcTaskClient extends RpcTaskClient {
  constructor(address: string) {
    super(http2GrpcTransport(address), address);
  }
}

export class GrpcTaskClientFactory implements TaskClientFactory {
  connect(address: string): TaskClient {
    return new GrpcTaskClient(address);
  }
}

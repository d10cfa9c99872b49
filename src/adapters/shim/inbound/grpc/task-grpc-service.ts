import {
  Metadata,
  sendUnaryData,
  ServerUnaryCall,
  ServiceDefinition,
  StatusObject,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { task } from '../../../../infrastructure/proto/generated/task/v2/shim';
import { toRpcStatus } from '../task-rpc/rpc-status';
import { TaskHandlers } from '../task-rpc/task-handlers';

const passBytes = (bytes: Buffer): Buffer => bytes;

/**
 * task.v2.Task's definition with bytes in and bytes out: the shared handlers decode
 * and encode, so grpc-js never fails a call on bytes that do not decode (it would say
 * INTERNAL; the contract says INVALID_ARGUMENT, which the handlers answer).
 */
export function taskBytesDefinition(): ServiceDefinition {
  const methods = Object.entries(task.v2.UnimplementedTaskService.definition).map(([name, method]) => [
    name,
    { ...method, requestDeserialize: passBytes, responseSerialize: passBytes },
  ]);
  return Object.fromEntries(methods) as ServiceDefinition;
}

function toGrpcStatus(err: unknown): Partial<StatusObject> {
  const { code, message } = toRpcStatus(err);
  return { code, details: message, metadata: new Metadata() };
}

/** The shared handlers as grpc-js unary handlers. Handlers run concurrently. */
export function taskGrpcHandlers(handlers: TaskHandlers): UntypedServiceImplementation {
  const entries = [...handlers].map(([name, handle]) => [
    name,
    (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void => {
      handle(call.request).then(
        (reply) => callback(null, reply),
        (err: unknown) => callback(toGrpcStatus(err)),
      );
    },
  ]);
  return Object.fromEntries(entries) as UntypedServiceImplementation;
}

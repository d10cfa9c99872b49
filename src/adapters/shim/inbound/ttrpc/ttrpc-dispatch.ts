import { google as statusPb } from '../../wire/proto/generated/google/rpc/status';
import { ttrpc } from '../../wire/proto/generated/ttrpc/request';
import { RpcCode } from '../../wire/rpc-code';
import { toRpcStatus } from '../../wire/rpc-status';

/** One service's methods by bare name: payload bytes in, reply bytes out (a rejection is the error). */
export type MethodTable = ReadonlyMap<string, (payload: Buffer) => Promise<Buffer>>;

/** The services a ttrpc server answers, by fully qualified name (`containerd.task.v2.Task`). */
export type TtrpcServices = ReadonlyMap<string, MethodTable>;

export function statusResponse(code: RpcCode, message: string): ttrpc.Response {
  return new ttrpc.Response({ status: new statusPb.rpc.Status({ code, message }) });
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Runs one request and never rejects: the reply is a Response with the payload and no
 * status (as ttrpc's Go server sends success), or a status and no payload. Unknown
 * names get ttrpc's own Unimplemented texts (services.go resolve).
 */
export async function dispatch(services: TtrpcServices, request: ttrpc.Request): Promise<ttrpc.Response> {
  const methods = services.get(request.service);
  if (methods === undefined) return statusResponse(RpcCode.UNIMPLEMENTED, `service ${request.service}`);
  const handle = methods.get(request.method);
  if (handle === undefined) return statusResponse(RpcCode.UNIMPLEMENTED, `method ${request.method}`);
  try {
    return new ttrpc.Response({ payload: await handle(asBuffer(request.payload)) });
  } catch (err) {
    const { code, message } = toRpcStatus(err);
    return statusResponse(code, message);
  }
}

import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2';
import { MAX_MESSAGE_LENGTH, PREFIX_LENGTH, declaredLength, frameMessage } from '../../wire/grpc/grpc-framing';
import { RpcCode, rpcCodeName } from '../../wire/rpc-code';
import type { TaskMethodName } from '../../wire/codec/task-codec';
import { unixPath } from '../../os/unix-address';
import type { RpcFailure } from './from-rpc-error';
import type { UnaryTransport } from './rpc-task-client';

/** A call that ended with a status other than OK: what grpc-js's ServiceError carries too. */
export class GrpcCallError extends Error implements RpcFailure {
  constructor(
    readonly code: number,
    readonly details: string,
  ) {
    super(`${code} ${rpcCodeName(code)}: ${details}`);
  }
}

/** An HTTP status without grpc-status, as gRPC maps it (grpc/grpc doc/http-grpc-status-mapping.md). */
function codeOfHttpStatus(status: number): RpcCode {
  if (status === 400) return RpcCode.INTERNAL;
  if (status === 401) return RpcCode.UNAUTHENTICATED;
  if (status === 403) return RpcCode.PERMISSION_DENIED;
  if (status === 404) return RpcCode.UNIMPLEMENTED;
  if (status === 429 || status === 502 || status === 503 || status === 504) return RpcCode.UNAVAILABLE;
  return RpcCode.UNKNOWN;
}

/** A stream reset by the server without a status, as grpc-js reports it. */
function codeOfReset(rstCode: number): RpcCode {
  const { constants } = require('node:http2') as typeof import('node:http2');
  if (rstCode === constants.NGHTTP2_REFUSED_STREAM) return RpcCode.UNAVAILABLE;
  if (rstCode === constants.NGHTTP2_CANCEL) return RpcCode.CANCELLED;
  if (rstCode === constants.NGHTTP2_ENHANCE_YOUR_CALM) return RpcCode.RESOURCE_EXHAUSTED;
  if (rstCode === constants.NGHTTP2_INADEQUATE_SECURITY) return RpcCode.PERMISSION_DENIED;
  return RpcCode.INTERNAL;
}

/** grpc-message is percent-encoded (grpc-framing.ts encodeGrpcMessage); a malformed one is taken as it is. */
function decodeGrpcMessage(message: string | string[] | undefined): string {
  const text = Array.isArray(message) ? message.join(',') : (message ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The reply of a call that ended OK: its one length-prefixed message. */
function replyMessage(body: Buffer, headers: IncomingHttpHeaders): Buffer {
  if (body.length < PREFIX_LENGTH) throw new GrpcCallError(RpcCode.INTERNAL, 'No message received');
  const length = declaredLength(body);
  if (body.length !== PREFIX_LENGTH + length) {
    throw new GrpcCallError(RpcCode.INTERNAL, 'The reply is not exactly one message');
  }
  const message = body.subarray(PREFIX_LENGTH);
  if (body[0] === 0) return message;
  // The shim never compresses its replies: another server might, with gzip or deflate.
  const encoding = headers['grpc-encoding'];
  const { gunzipSync, inflateSync } = require('node:zlib') as typeof import('node:zlib');
  try {
    if (encoding === 'gzip') return gunzipSync(message, { maxOutputLength: MAX_MESSAGE_LENGTH });
    if (encoding === 'deflate') return inflateSync(message, { maxOutputLength: MAX_MESSAGE_LENGTH });
  } catch (err) {
    throw new GrpcCallError(RpcCode.INTERNAL, `The reply does not decompress: ${(err as Error).message}`);
  }
  throw new GrpcCallError(RpcCode.INTERNAL, `The reply is compressed with unsupported encoding "${String(encoding)}"`);
}

interface Status {
  readonly code: number;
  readonly details: string;
}

/** grpc-status from the trailers, or from the headers of a trailers-only reply. */
function callStatusIfAny(
  headers: IncomingHttpHeaders | undefined,
  trailers: IncomingHttpHeaders | undefined,
): Status | undefined {
  const status = trailers?.['grpc-status'] ?? headers?.['grpc-status'];
  if (status === undefined) return undefined;
  const code = Number(status);
  const details = decodeGrpcMessage(trailers?.['grpc-message'] ?? headers?.['grpc-message']);
  return Number.isInteger(code)
    ? { code, details }
    : { code: RpcCode.UNKNOWN, details: `grpc-status ${String(status)}` };
}

/** The status a finished call ended with: grpc-status; without it, what the HTTP status or the reset says. */
function callStatus(
  headers: IncomingHttpHeaders | undefined,
  trailers: IncomingHttpHeaders | undefined,
  rstCode: number | undefined,
): Status {
  const status = callStatusIfAny(headers, trailers);
  if (status !== undefined) return status;
  const httpStatus = Number(headers?.[':status'] ?? 0);
  if (headers !== undefined && httpStatus !== 200) {
    return { code: codeOfHttpStatus(httpStatus), details: `Received HTTP status code ${httpStatus}` };
  }
  if (rstCode !== undefined && rstCode !== 0) {
    return { code: codeOfReset(rstCode), details: `Received RST_STREAM with code ${rstCode}` };
  }
  return { code: RpcCode.UNKNOWN, details: 'No status received' };
}

/**
 * task.v2.Task's unary calls as gRPC on `node:http2` (grpc/grpc doc/PROTOCOL-HTTP2.md):
 * a POST to /task.v2.Task/<Method> with `content-type: application/grpc` and `te: trailers`,
 * the request as one length-prefixed message, the reply the same, its status in the
 * trailers `grpc-status` and `grpc-message` (or the headers of a trailers-only reply).
 * The calls the shim serves are all unary, so this is all a client needs: grpc-js's
 * channel, resolver and load balancer cost a fresh process (`skiff task`) more than the
 * calls themselves (docs/performance.md). One connection, opened on the first call and
 * again after it closes; like grpc-js, a connection with no call in flight does not keep
 * the process alive, a call that cannot connect fails at once (UNAVAILABLE), and there is
 * no deadline. Replies over 4 MiB are refused (RESOURCE_EXHAUSTED), as grpc-js does.
 */
export function http2GrpcTransport(address: string): UnaryTransport {
  const path = unixPath(address);
  let session: ClientHttp2Session | undefined;
  let inFlight = 0;

  const open = (): ClientHttp2Session => {
    if (session !== undefined && !session.closed && !session.destroyed) return session;
    const { connect } = require('node:http2') as typeof import('node:http2');
    const net = require('node:net') as typeof import('node:net');
    const opened = connect('http://localhost', { createConnection: () => net.connect(path) });
    // A failed connection fails its calls (their streams' errors): the session's own event has nothing to add.
    opened.on('error', () => undefined);
    opened.once('close', () => {
      if (session === opened) session = undefined;
    });
    session = opened;
    return opened;
  };

  const settled = (): void => {
    if (--inFlight === 0) session?.unref();
  };

  const call = (method: TaskMethodName, request: Buffer): Promise<Buffer> =>
    new Promise<Buffer>((resolve, reject) => {
      let stream: ClientHttp2Stream;
      let current: ClientHttp2Session;
      try {
        current = open();
        stream = current.request({
          ':method': 'POST',
          ':path': `/task.v2.Task/${method}`,
          'content-type': 'application/grpc',
          te: 'trailers',
        });
        current.ref();
      } catch (err) {
        reject(new GrpcCallError(RpcCode.UNAVAILABLE, (err as Error).message));
        return;
      }
      inFlight++;
      let headers: IncomingHttpHeaders | undefined;
      let trailers: IncomingHttpHeaders | undefined;
      let failure: GrpcCallError | undefined;
      const chunks: Buffer[] = [];
      let received = 0;
      stream.once('response', (h) => (headers = h));
      stream.once('trailers', (t) => (trailers = t));
      stream.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > PREFIX_LENGTH + MAX_MESSAGE_LENGTH) {
          failure ??= new GrpcCallError(
            RpcCode.RESOURCE_EXHAUSTED,
            `Received message larger than max (${received - PREFIX_LENGTH} vs. ${MAX_MESSAGE_LENGTH})`,
          );
          const { constants } = require('node:http2') as typeof import('node:http2');
          stream.close(constants.NGHTTP2_CANCEL);
          return;
        }
        chunks.push(chunk);
      });
      stream.on('error', (err: NodeJS.ErrnoException) => {
        // Before any reply: nobody (or nobody speaking HTTP/2) at the socket. Resets are read at close.
        if (headers === undefined && err.code !== 'ERR_HTTP2_STREAM_ERROR') {
          failure ??= new GrpcCallError(RpcCode.UNAVAILABLE, `No connection established: ${err.message}`);
        }
      });
      stream.once('close', () => {
        settled();
        if (failure !== undefined) return reject(failure);
        const { code, details } = current.destroyed
          ? // The connection ended before the call's status (the shim exited, as after Shutdown).
            (callStatusIfAny(headers, trailers) ?? { code: RpcCode.UNAVAILABLE, details: 'Connection dropped' })
          : callStatus(headers, trailers, stream.rstCode);
        if (code !== RpcCode.OK) return reject(new GrpcCallError(code, details));
        try {
          resolve(replyMessage(Buffer.concat(chunks), headers ?? {}));
        } catch (err) {
          reject(err as Error);
        }
      });
      stream.end(frameMessage(request));
    });

  return {
    call,
    close: () => {
      session?.close();
      session = undefined;
    },
  };
}

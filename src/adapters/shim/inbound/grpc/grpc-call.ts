import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { RpcCode } from '../../wire/rpc-code';
import { RpcStatus, toRpcStatus } from '../../wire/rpc-status';
import { TaskHandler, TaskHandlers } from '../task-rpc/task-handlers';
import {
  CallStatus,
  declaredLength,
  encodeGrpcMessage,
  frameMessage,
  MAX_MESSAGE_LENGTH,
  PREFIX_LENGTH,
  timeoutMs,
  unaryMessage,
} from '../../wire/grpc/grpc-framing';

const SERVICE_PATH = '/task.v2.Task/';
const CONTENT_TYPE = 'application/grpc+proto';
const REPLY_HEADERS = { ':status': 200, 'content-type': CONTENT_TYPE, 'grpc-accept-encoding': 'identity,deflate,gzip' };
const OK_TRAILERS = { 'grpc-status': '0', 'grpc-message': 'OK' };
const ignore = (): void => undefined;

/**
 * One unary task.v2.Task call on its HTTP/2 stream (grpc/grpc doc/PROTOCOL-HTTP2.md):
 * read the one request message, run the handler, answer the reply with status OK in
 * the trailers, or a failure as a trailers-only response. A call whose client went away
 * (cancelled, deadline passed) still runs to its end, unanswered: a Create half done
 * must not be abandoned.
 */
export function serveGrpcCall(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, handlers: TaskHandlers): void {
  stream.on('error', ignore);
  const contentType = headers['content-type'];
  if (contentType === undefined || !contentType.startsWith('application/grpc')) {
    // Not a gRPC request at all: HTTP's own answer, as grpc-go and grpc-js give.
    stream.respond({ ':status': 415 }, { endStream: true });
    return;
  }
  const path = headers[':path'] ?? '';
  const handle = path.startsWith(SERVICE_PATH) ? handlers.get(path.slice(SERVICE_PATH.length)) : undefined;
  if (handle === undefined) {
    answerStatus(stream, { code: RpcCode.UNIMPLEMENTED, message: `The server does not implement the method ${path}` });
    return;
  }
  let deadline: NodeJS.Timeout | undefined;
  try {
    const ms = timeoutMs(headers['grpc-timeout']);
    if (ms !== undefined) {
      deadline = setTimeout(
        () => answerStatus(stream, { code: RpcCode.DEADLINE_EXCEEDED, message: 'Deadline exceeded' }),
        ms,
      );
    }
  } catch (err) {
    answerStatus(stream, err as CallStatus);
    return;
  }
  run(stream, headers, handle).then(
    (reply) => {
      clearTimeout(deadline);
      answerReply(stream, reply);
    },
    (err: unknown) => {
      clearTimeout(deadline);
      answerStatus(stream, err instanceof CallStatus ? err : toRpcStatus(err));
    },
  );
}

async function run(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, handle: TaskHandler): Promise<Buffer> {
  const body = await readBody(stream);
  const encoding = headers['grpc-encoding'];
  return handle(unaryMessage(body, typeof encoding === 'string' ? encoding : undefined));
}

/**
 * The request body. A message declared over the limit is refused as soon as its prefix
 * arrives, and a body that grows past one message of the limit is never held whole.
 */
function readBody(stream: ServerHttp2Stream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let declared: number | undefined;
    const refuse = (length: number) => {
      // The rest is read and dropped, so the stream can close.
      chunks.length = 0;
      stream.off('data', onData);
      stream.on('data', ignore);
      const text = `Received message larger than max (${length} vs. ${MAX_MESSAGE_LENGTH})`;
      reject(new CallStatus(RpcCode.RESOURCE_EXHAUSTED, text));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (declared === undefined && received >= PREFIX_LENGTH) {
        declared = declaredLength(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
        if (declared > MAX_MESSAGE_LENGTH) return refuse(declared);
      }
      if (received > PREFIX_LENGTH + MAX_MESSAGE_LENGTH) refuse(received - PREFIX_LENGTH);
    };
    stream.on('data', onData);
    stream.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
  });
}

/** Whether the call may still be answered: not yet answered, and its client still there. */
function open(stream: ServerHttp2Stream): boolean {
  return !stream.headersSent && !stream.destroyed && !stream.closed;
}

function answerReply(stream: ServerHttp2Stream, reply: Buffer): void {
  if (!open(stream)) return;
  stream.respond(REPLY_HEADERS, { waitForTrailers: true });
  stream.once('wantTrailers', () => stream.sendTrailers(OK_TRAILERS));
  stream.end(frameMessage(reply));
}

function answerStatus(stream: ServerHttp2Stream, status: RpcStatus): void {
  if (!open(stream)) return;
  // Whatever of the request is still unread is read and dropped, so the stream can close.
  stream.resume();
  const { code, message } = status;
  stream.respond(
    {
      ':status': 200,
      'content-type': CONTENT_TYPE,
      'grpc-status': String(code),
      'grpc-message': encodeGrpcMessage(message),
    },
    { endStream: true },
  );
}

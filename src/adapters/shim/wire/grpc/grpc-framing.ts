import { RpcCode } from '../rpc-code';
import { RpcStatus } from '../rpc-status';

/**
 * gRPC's message framing on HTTP/2 (grpc/grpc doc/PROTOCOL-HTTP2.md): every message is a
 * Length-Prefixed-Message, a compressed flag (1 byte) and a big-endian length (4 bytes)
 * before the bytes.
 */
export const PREFIX_LENGTH = 5;

/** The largest request message taken, as grpc-go and grpc-js default to. */
export const MAX_MESSAGE_LENGTH = 4 * 1024 * 1024;

/** A call's failure before or outside its handler, answered as this status. */
export class CallStatus extends Error implements RpcStatus {
  constructor(
    readonly code: RpcCode,
    message: string,
  ) {
    super(message);
  }
}

export function frameMessage(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(PREFIX_LENGTH + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, PREFIX_LENGTH);
  return frame;
}

/** The declared length of the message starting at `prefix` (at least PREFIX_LENGTH bytes). */
export function declaredLength(prefix: Buffer): number {
  return prefix.readUInt32BE(1);
}

/**
 * The one message of a unary request body, decompressed when its flag says so with the
 * call's grpc-encoding (gzip and deflate, what grpc-go and grpc-js can send).
 */
export function unaryMessage(body: Buffer, encoding: string | undefined): Buffer {
  if (body.length < PREFIX_LENGTH) throw new CallStatus(RpcCode.INTERNAL, 'No message received');
  const length = declaredLength(body);
  if (body.length > PREFIX_LENGTH + length) {
    throw new CallStatus(RpcCode.INTERNAL, 'Received a second request message for a unary method');
  }
  if (body.length < PREFIX_LENGTH + length) throw new CallStatus(RpcCode.INTERNAL, 'Request message truncated');
  const message = body.subarray(PREFIX_LENGTH);
  if (body[0] === 0) return message;
  const options = { maxOutputLength: MAX_MESSAGE_LENGTH };
  // Loaded on the first compressed request only: no client of the shim's compresses by default.
  const { gunzipSync, inflateSync } = require('node:zlib') as typeof import('node:zlib');
  try {
    if (encoding === 'gzip') return gunzipSync(message, options);
    if (encoding === 'deflate') return inflateSync(message, options);
  } catch (err) {
    if (err instanceof RangeError) {
      throw new CallStatus(RpcCode.RESOURCE_EXHAUSTED, `Received message larger than max (${MAX_MESSAGE_LENGTH})`);
    }
    throw new CallStatus(RpcCode.INTERNAL, `Request message does not decompress: ${(err as Error).message}`);
  }
  throw new CallStatus(RpcCode.UNIMPLEMENTED, `Received message compressed with unsupported encoding "${encoding}"`);
}

/** grpc-message is percent-encoded: every byte outside printable ASCII, and `%` itself. */
export function encodeGrpcMessage(message: string): string {
  return message.replace(/[^\x20-\x24\x26-\x7e]+/gu, (text) => encodeURIComponent(text));
}

const TIMEOUT_UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };

/** A grpc-timeout header ("100m", "5S") in milliseconds; undefined when there is none. */
export function timeoutMs(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const match = typeof header === 'string' ? /^(\d{1,8})([HMSmun])$/.exec(header) : null;
  if (match === null) throw new CallStatus(RpcCode.INTERNAL, `Invalid grpc-timeout value "${String(header)}"`);
  return Number(match[1]) * TIMEOUT_UNIT_MS[match[2]];
}

import { ProcessStatus } from '../../../domain/shim/lifecycle';
import { AnyPayload } from '../../../application/shim/task/task-messages';
import { google as anyPb } from './proto/generated/google/protobuf/any';
import { google as timestampPb } from './proto/generated/google/protobuf/timestamp';
import { v1 } from './proto/generated/v1/types/task';

const STATUS: Record<ProcessStatus, v1.types.Status> = {
  created: v1.types.Status.CREATED,
  running: v1.types.Status.RUNNING,
  paused: v1.types.Status.PAUSED,
  stopped: v1.types.Status.STOPPED,
  deleted: v1.types.Status.UNKNOWN,
};

export function toProtoStatus(status: ProcessStatus): v1.types.Status {
  return STATUS[status];
}

/** A Date as google.protobuf.Timestamp; undefined stays unset on the wire. */
export function toTimestamp(date: Date | undefined): timestampPb.protobuf.Timestamp | undefined {
  if (date === undefined) return undefined;
  const ms = date.getTime();
  const seconds = Math.floor(ms / 1000);
  return new timestampPb.protobuf.Timestamp({ seconds, nanos: (ms - seconds * 1000) * 1_000_000 });
}

export function fromAny(message: anyPb.protobuf.Any | undefined, present: boolean): AnyPayload | undefined {
  if (!present || message === undefined) return undefined;
  return { typeUrl: message.type_url, value: message.value };
}

export function toAny(typeUrl: string, value: Uint8Array): anyPb.protobuf.Any {
  return new anyPb.protobuf.Any({ type_url: typeUrl, value });
}

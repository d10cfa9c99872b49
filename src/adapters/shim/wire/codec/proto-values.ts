import { AnyPayload } from '../../../../application/shim/task/task-messages';
import { google as anyPb } from '../proto/generated/google/protobuf/any';
import { google as timestampPb } from '../proto/generated/google/protobuf/timestamp';

export type Timestamp = timestampPb.protobuf.Timestamp;
export const Timestamp = timestampPb.protobuf.Timestamp;

/** A Date as google.protobuf.Timestamp; undefined stays unset on the wire. */
export function toTimestamp(date: Date | undefined): Timestamp | undefined {
  if (date === undefined) return undefined;
  const ms = date.getTime();
  const seconds = Math.floor(ms / 1000);
  return new Timestamp({ seconds, nanos: (ms - seconds * 1000) * 1_000_000 });
}

/** A Timestamp field as a Date (millisecond precision); undefined while unset. */
export function fromTimestamp(ts: Timestamp, present: boolean): Date | undefined {
  return present ? new Date(ts.seconds * 1000 + Math.floor(ts.nanos / 1e6)) : undefined;
}

/** An Any field as the use cases see it; undefined while unset. */
export function fromAny(message: anyPb.protobuf.Any | undefined, present: boolean): AnyPayload | undefined {
  if (!present || message === undefined) return undefined;
  return { typeUrl: message.type_url, value: message.value };
}

export function toAny(payload: AnyPayload | undefined): anyPb.protobuf.Any | undefined {
  return payload === undefined
    ? undefined
    : new anyPb.protobuf.Any({ type_url: payload.typeUrl, value: payload.value });
}

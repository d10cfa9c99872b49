import type * as pb_1 from 'google-protobuf';
import { fromTimestamp, Timestamp } from './proto-values';

/** A message's toObject() with its Timestamp fields as strings. */
type Json<T> = {
  [K in keyof T]: T[K] extends { seconds?: number; nanos?: number } | undefined ? string | undefined : T[K];
};

/**
 * A message as skiff prints it with `--json`: its proto field names, a Timestamp as RFC
 * 3339 and absent while unset. Enum fields stay numbers: the caller names them.
 */
export function messageJson<M extends pb_1.Message & { toObject(): object }>(
  message: M,
): Json<ReturnType<M['toObject']>> {
  const json: Record<string, unknown> = { ...message.toObject() };
  for (const key of Object.keys(json)) {
    const value = (message as unknown as Record<string, unknown>)[key];
    if (value instanceof Timestamp) json[key] = fromTimestamp(value, true)?.toISOString();
  }
  return json as Json<ReturnType<M['toObject']>>;
}

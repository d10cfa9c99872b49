import { AnyPayload } from '../../../../application/shim/task/task-messages';
import { containerd } from '../../wire/proto/generated/events/ttrpc/v1/events';
import { google as anyPb } from '../../wire/proto/generated/google/protobuf/any';
import { google as timestampPb } from '../../wire/proto/generated/google/protobuf/timestamp';
import { TTRPC_EVENTS_SERVICE } from '../../wire/ttrpc/service-names';
import { TtrpcClient } from '../../wire/ttrpc/ttrpc-client';

/** One event as a shim publishes it: `/tasks/exit` with an Any of containerd.events.TaskExit, say. */
export interface EventEnvelope {
  readonly timestamp: Date;
  readonly namespace: string;
  readonly topic: string;
  readonly event: AnyPayload;
}

/** How long containerd's runc shim gives one Forward (runtime/v2/shim/publisher.go). */
export const FORWARD_TIMEOUT_MS = 5000;

/**
 * Events.Forward to containerd's ttrpc socket ($TTRPC_ADDRESS), as containerd 1.6's
 * shims publish: the namespace also as `containerd-namespace-ttrpc` metadata, which is
 * where containerd reads it from. Rejects with the TtrpcError; retrying is the caller's.
 */
export async function forwardEvent(
  client: TtrpcClient,
  envelope: EventEnvelope,
  timeoutMs = FORWARD_TIMEOUT_MS,
): Promise<void> {
  const ms = envelope.timestamp.getTime();
  const seconds = Math.floor(ms / 1000);
  const request = new containerd.services.events.ttrpc.v1.ForwardRequest({
    envelope: new containerd.services.events.ttrpc.v1.Envelope({
      timestamp: new timestampPb.protobuf.Timestamp({ seconds, nanos: (ms - seconds * 1000) * 1_000_000 }),
      namespace: envelope.namespace,
      topic: envelope.topic,
      event: new anyPb.protobuf.Any({ type_url: envelope.event.typeUrl, value: envelope.event.value }),
    }),
  });
  await client.call(TTRPC_EVENTS_SERVICE, 'Forward', request.serialize(), {
    timeoutMs,
    metadata: { 'containerd-namespace-ttrpc': envelope.namespace },
  });
}

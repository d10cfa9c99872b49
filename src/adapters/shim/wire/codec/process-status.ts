import { ProcessStatus } from '../../../../domain/shim/lifecycle';
import { v1 } from '../proto/generated/v1/types/task';

const Status = v1.types.Status;

/** The one map between the service's statuses and v1.types.Status; a deleted process is UNKNOWN. */
const TO_PROTO: Record<ProcessStatus, v1.types.Status> = {
  created: Status.CREATED,
  running: Status.RUNNING,
  paused: Status.PAUSED,
  stopped: Status.STOPPED,
  deleted: Status.UNKNOWN,
};

export function toProtoStatus(status: ProcessStatus): v1.types.Status {
  return TO_PROTO[status];
}

/** A status off the wire: PAUSING is on its way to paused; UNKNOWN (or a status this shim does not know) reads as stopped. */
export function fromProtoStatus(status: v1.types.Status): ProcessStatus {
  if (status === Status.PAUSING) return 'paused';
  const found = (Object.keys(TO_PROTO) as ProcessStatus[]).find((s) => s !== 'deleted' && TO_PROTO[s] === status);
  return found ?? 'stopped';
}

/** The status as `--json` and `skiff task ls` print it: its v1.types.Status name (RUNNING). */
export function statusName(status: ProcessStatus): string {
  return Status[TO_PROTO[status]];
}

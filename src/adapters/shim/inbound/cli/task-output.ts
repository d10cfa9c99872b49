import {
  ConnectView,
  DeleteView,
  ExitView,
  PidView,
  StateView,
  StatsView,
} from '../../../../application/shim/task/task-messages';
import { statusName } from '../../wire/codec/process-status';
import { messageJson } from '../../wire/codec/message-json';
import { taskCodec } from '../../wire/codec/task-codec';
import { taskStatsMessage } from '../../wire/codec/task-payloads';

// What `skiff task ... --json` prints: the reply as the codec puts it on the wire, by its
// proto field names, the status as its v1.types.Status name, times as RFC 3339 (absent
// while unset). A field added to a reply in the codec shows up here too.
const codec = taskCodec();

export function stateJson(s: StateView) {
  return { ...messageJson(codec.State.replyMessage(s)), status: statusName(s.status) };
}

export function exitJson(e: ExitView) {
  return messageJson(codec.Wait.replyMessage(e));
}

export function deleteJson(d: DeleteView) {
  return messageJson(codec.Delete.replyMessage(d));
}

export function connectJson(c: ConnectView) {
  return messageJson(codec.Connect.replyMessage(c));
}

/** Pids' info Any is shown as what it says: the exec id, for an exec's pid. */
export function pidsJson(pids: PidView[]) {
  return { processes: pids.map((p) => (p.execId === undefined ? { pid: p.pid } : { pid: p.pid, exec_id: p.execId })) };
}

/** Stats' payload, skiff.v1.TaskStats, by its field names. */
export function statsJson(s: StatsView) {
  return messageJson(taskStatsMessage(s));
}

export function exitLine(e: ExitView): string {
  return `exit status ${e.exitStatus}${e.exitedAt ? ` at ${e.exitedAt.toISOString()}` : ''}`;
}

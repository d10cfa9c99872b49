import { TaskEvent } from '../../../../application/shim/ports/events.port';
import { AnyPayload } from '../../../../application/shim/task/task-messages';
import { containerd } from '../../wire/proto/generated/events/task';
import { types as mountPb } from '../../wire/proto/generated/types/mount';
import { toTimestamp } from '../../wire/codec/proto-values';

const ev = containerd.events;

/** containerd's zero time (Go's time.Time{}), what its shims send for "never exited". */
const GO_ZERO_TIME = new Date(-62135596800000);

function any(typeName: string, message: { serialize(): Uint8Array }): AnyPayload {
  return { typeUrl: `containerd.events.${typeName}`, value: message.serialize() };
}

/** A task event as containerd's api/events/task.proto message, in an Any as containerd names it. */
export function eventPayload(event: TaskEvent): AnyPayload {
  const container_id = event.id;
  switch (event.topic) {
    case '/tasks/create':
      return any(
        'TaskCreate',
        new ev.TaskCreate({
          container_id,
          bundle: event.bundle,
          rootfs: event.rootfs.map((m) => new mountPb.Mount({ ...m, options: [...m.options] })),
          io: new ev.TaskIO(event.stdio),
          checkpoint: event.checkpoint,
          pid: event.pid,
        }),
      );
    case '/tasks/start':
      return any('TaskStart', new ev.TaskStart({ container_id, pid: event.pid }));
    case '/tasks/exit':
      return any(
        'TaskExit',
        new ev.TaskExit({
          container_id,
          id: event.execId === '' ? event.id : event.execId,
          pid: event.pid,
          exit_status: event.exitStatus,
          exited_at: toTimestamp(event.exitedAt),
        }),
      );
    case '/tasks/delete':
      return any(
        'TaskDelete',
        new ev.TaskDelete({
          container_id,
          id: event.id,
          pid: event.pid,
          exit_status: event.exitStatus,
          exited_at: toTimestamp(event.exitedAt ?? GO_ZERO_TIME),
        }),
      );
    case '/tasks/exec-added':
      return any('TaskExecAdded', new ev.TaskExecAdded({ container_id, exec_id: event.execId }));
    case '/tasks/exec-started':
      return any('TaskExecStarted', new ev.TaskExecStarted({ container_id, exec_id: event.execId, pid: event.pid }));
    case '/tasks/paused':
      return any('TaskPaused', new ev.TaskPaused({ container_id }));
    case '/tasks/resumed':
      return any('TaskResumed', new ev.TaskResumed({ container_id }));
    case '/tasks/oom':
      return any('TaskOOM', new ev.TaskOOM({ container_id }));
  }
}

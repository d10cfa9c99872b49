import { ExitStatus } from '../../../domain/shim/exit-status';
import { Events } from '../ports/events.port';

interface Held {
  readonly pid: number;
  readonly exit: ExitStatus;
}

/**
 * Publishes each process's one exit event, never before its start event: a container
 * can exit before `runc start` has returned, and containerd must hear start, then exit
 * (its runc shim holds exits back the same way, with eventSendMu). An exit of a
 * process that was never started goes out when it is deleted, before the delete event.
 */
export class ExitEvents {
  private readonly started = new Set<string>();
  private readonly held = new Map<string, Held>();

  constructor(private readonly events: Events) {}

  /** The process exited: publish now if its start was published, else hold the exit. */
  exited(id: string, execId: string, pid: number, exit: ExitStatus): void {
    const key = keyOf(id, execId);
    if (this.started.has(key)) this.publish(id, execId, { pid, exit });
    else this.held.set(key, { pid, exit });
  }

  /** Its start event was just published: an exit held meanwhile follows it. */
  startPublished(id: string, execId: string): void {
    const key = keyOf(id, execId);
    this.started.add(key);
    this.release(id, execId);
  }

  /** The process is being deleted: a held exit goes out now, and the process is forgotten. */
  deleted(id: string, execId: string): void {
    this.release(id, execId);
    this.started.delete(keyOf(id, execId));
  }

  /** The process was removed by another, who reports its exit (containerd's `delete`): nothing goes out. */
  forgotten(id: string, execId: string): void {
    this.held.delete(keyOf(id, execId));
    this.started.delete(keyOf(id, execId));
  }

  private release(id: string, execId: string): void {
    const held = this.held.get(keyOf(id, execId));
    if (held === undefined) return;
    this.held.delete(keyOf(id, execId));
    this.publish(id, execId, held);
  }

  private publish(id: string, execId: string, { pid, exit }: Held): void {
    this.events.publish({ topic: '/tasks/exit', id, execId, pid, exitStatus: exit.status, exitedAt: exit.exitedAt });
  }
}

function keyOf(id: string, execId: string): string {
  return `${id}\0${execId}`;
}

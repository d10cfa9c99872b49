import { Events, TaskEvent } from '../../../application/shim/ports/events.port';

/** Events kept in the order published (held to ForwardedEvents by test/contract/shim/events.contract.ts). */
export class RecordingEvents implements Events {
  readonly published: TaskEvent[] = [];

  publish(event: TaskEvent): void {
    this.published.push(event);
  }

  topics(id?: string): string[] {
    return this.published.filter((e) => id === undefined || e.id === id).map((e) => e.topic);
  }
}

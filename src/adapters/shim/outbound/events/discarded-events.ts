import { Events, TaskEvent } from '../../../../application/shim/ports/events.port';

/** `skiff shim serve` has no events service to report to: its clients learn exits from Wait. */
export class DiscardedEvents implements Events {
  publish(event: TaskEvent): void {
    void event;
  }
}

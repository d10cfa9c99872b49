import { Events, TaskEvent } from '../../../../application/shim/ports/events.port';
import { TtrpcClient } from '../../wire/ttrpc/ttrpc-client';
import { eventPayload } from './event-messages';
import { forwardEvent } from './forward-event';

/** The first retry waits this long, each next one this much longer (containerd's publisher: count x 1 s). */
const RETRY_STEP_MS = 1000;
const MAX_RETRY_MS = 5000;

interface Queued {
  readonly event: TaskEvent;
  readonly timestamp: Date;
}

/**
 * Task events forwarded to containerd's events service at $TTRPC_ADDRESS, one at a time
 * and in order, each under the namespace the shim serves. A Forward that fails (containerd
 * restarting, say) is retried on a new connection until it goes through: an exit that
 * happens while containerd is down is reported once it is back, never dropped. A Forward
 * is sent once it was answered, so it is never repeated after containerd took it; only a
 * reply lost with the connection can make containerd see one twice.
 */
export class ForwardedEvents implements Events {
  private readonly queue: Queued[] = [];
  private client: TtrpcClient | undefined;
  private sending = false;
  private drained: Array<() => void> = [];

  constructor(
    private readonly ttrpcAddress: string,
    private readonly namespace: string,
    private readonly now: () => Date = () => new Date(),
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  publish(event: TaskEvent): void {
    this.queue.push({ event, timestamp: this.now() });
    if (this.sending) return;
    this.sending = true;
    // Encoded and written once the current call's reply is out, off the caller's path
    // (containerd's runc shim hands its events to a goroutine likewise).
    setImmediate(() => void this.send());
  }

  /** Resolves once every event published so far went out, or after `timeoutMs`. */
  flush(timeoutMs: number): Promise<void> {
    if (this.queue.length === 0 && !this.sending) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.drained.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private async send(): Promise<void> {
    let failures = 0;
    while (this.queue.length > 0) {
      const { event, timestamp } = this.queue[0];
      try {
        this.client ??= new TtrpcClient(this.ttrpcAddress);
        await forwardEvent(this.client, {
          timestamp,
          namespace: this.namespace,
          topic: event.topic,
          event: eventPayload(event),
        });
        this.queue.shift();
        failures = 0;
      } catch (err) {
        this.client?.close();
        this.client = undefined;
        failures++;
        this.log(`forwarding ${event.topic} of ${event.id} failed (${(err as Error).message}); retry ${failures}`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(failures * RETRY_STEP_MS, MAX_RETRY_MS)));
      }
    }
    this.sending = false;
    for (const done of this.drained.splice(0)) done();
  }
}

import { Events, TaskEvent } from '../../../src/application/shim/ports/events.port';
import { waitFor } from '../../support/wait-for';

export interface EventsSubject {
  readonly events: Events;
  /** The topics and task ids delivered so far, in the order they arrived. */
  delivered(): Promise<string[]>;
  cleanup(): Promise<void>;
}

const exitedAt = new Date('2026-01-02T03:04:05.678Z');
const SEQUENCE: TaskEvent[] = [
  {
    topic: '/tasks/create',
    id: 'c1',
    bundle: '/b/c1',
    rootfs: [],
    stdio: { stdin: '', stdout: '/f/o', stderr: '', terminal: false },
    checkpoint: '',
    pid: 10,
  },
  { topic: '/tasks/start', id: 'c1', pid: 10 },
  { topic: '/tasks/exec-added', id: 'c1', execId: 'e1' },
  { topic: '/tasks/exec-started', id: 'c1', execId: 'e1', pid: 11 },
  { topic: '/tasks/paused', id: 'c1' },
  { topic: '/tasks/resumed', id: 'c1' },
  { topic: '/tasks/exit', id: 'c1', execId: 'e1', pid: 11, exitStatus: 2, exitedAt },
  { topic: '/tasks/exit', id: 'c1', execId: '', pid: 10, exitStatus: 137, exitedAt },
  { topic: '/tasks/delete', id: 'c1', pid: 10, exitStatus: 137, exitedAt },
];

/** What every Events adapter does, run against the fake and containerd's forwarder alike. */
export function eventsContract(name: string, make: () => Promise<EventsSubject>): void {
  describe(`${name} honours the Events contract`, () => {
    let subject: EventsSubject;
    beforeEach(async () => (subject = await make()));
    afterEach(() => subject.cleanup());

    it('delivers every event once, in the order published, without the publisher waiting', async () => {
      for (const event of SEQUENCE) expect(subject.events.publish(event)).toBeUndefined();
      const expected = SEQUENCE.map((e) => `${e.topic} ${e.id}`);
      let delivered: string[] = [];
      await waitFor(
        () => `${expected.length} events (delivered: ${delivered.join(', ')})`,
        async () => {
          delivered = await subject.delivered();
          return delivered.length >= expected.length;
        },
        5000,
      );
      expect(delivered).toEqual(expected);
    });
  });
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TTRPC_EVENTS_SERVICE } from '../../../../../src/adapters/shim/wire/ttrpc/service-names';
import { TtrpcServer } from '../../../../../src/adapters/shim/inbound/ttrpc/ttrpc-server';
import { ForwardedEvents } from '../../../../../src/adapters/shim/outbound/events/forwarded-events';
import { containerd as eventsPb } from '../../../../../src/adapters/shim/wire/proto/generated/events/task';
import { containerd } from '../../../../../src/adapters/shim/wire/proto/generated/events/ttrpc/v1/events';
import { eventsContract } from '../../../../contract/shim/events.contract';
import { RecordingEvents } from '../../../../../src/adapters/fakes/shim/recording-events';

eventsContract('RecordingEvents (the fake)', async () => {
  const events = new RecordingEvents();
  return {
    events,
    delivered: async () => events.published.map((e) => `${e.topic} ${e.id}`),
    cleanup: async () => undefined,
  };
});

interface Forwarded {
  readonly namespace: string;
  readonly topic: string;
  readonly typeUrl: string;
  readonly value: Uint8Array;
}

/** containerd's events service as far as a shim sees it: Events.Forward over ttrpc. */
async function fakeContainerd(path: string, received: Forwarded[]): Promise<TtrpcServer> {
  const forward = async (payload: Buffer): Promise<Buffer> => {
    const { envelope } = containerd.services.events.ttrpc.v1.ForwardRequest.deserialize(payload);
    received.push({
      namespace: envelope.namespace,
      topic: envelope.topic,
      typeUrl: envelope.event.type_url,
      value: envelope.event.value,
    });
    return Buffer.alloc(0);
  };
  return TtrpcServer.listen({ address: path }, new Map([[TTRPC_EVENTS_SERVICE, new Map([['Forward', forward]])]]));
}

function idOf(f: Forwarded): string {
  const name = f.typeUrl.replace('containerd.events.', '') as keyof typeof eventsPb.events;
  const message = (
    eventsPb.events[name] as unknown as { deserialize(b: Uint8Array): { container_id: string } }
  ).deserialize(f.value);
  return message.container_id;
}

eventsContract('ForwardedEvents (containerd Events.Forward over ttrpc)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-events-'));
  const received: Forwarded[] = [];
  const server = await fakeContainerd(join(dir, 'c.sock.ttrpc'), received);
  return {
    events: new ForwardedEvents(join(dir, 'c.sock.ttrpc'), 'ns1'),
    delivered: async () => received.map((f) => `${f.topic} ${idOf(f)}`),
    cleanup: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('ForwardedEvents while containerd is away', () => {
  it('keeps the events, in order, and delivers each once containerd listens again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-events-'));
    const path = join(dir, 'c.sock.ttrpc');
    const events = new ForwardedEvents(path, 'ns1');
    const exitedAt = new Date();
    events.publish({ topic: '/tasks/start', id: 'a', pid: 5 });
    events.publish({ topic: '/tasks/exit', id: 'a', execId: '', pid: 5, exitStatus: 3, exitedAt });
    const received: Forwarded[] = [];
    await new Promise((resolve) => setTimeout(resolve, 300));
    const server = await fakeContainerd(path, received);
    try {
      await events.flush(5000);
      expect(received.map((f) => [f.namespace, f.topic, f.typeUrl])).toEqual([
        ['ns1', '/tasks/start', 'containerd.events.TaskStart'],
        ['ns1', '/tasks/exit', 'containerd.events.TaskExit'],
      ]);
      const exit = eventsPb.events.TaskExit.deserialize(received[1].value);
      expect([exit.container_id, exit.id, exit.pid, exit.exit_status]).toEqual(['a', 'a', 5, 3]);
      expect(exit.exited_at.seconds).toBe(Math.floor(exitedAt.getTime() / 1000));
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

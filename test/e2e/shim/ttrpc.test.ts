import { status as Code } from '@grpc/grpc-js';
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { task } from '../../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import { nativeFixture, RuntimeFixture } from '../support/runtimes';
import { RunningShim, startShim } from '../support/shim-process';
import { errorOf } from '../support/task-client';
import { frame, requestFrame, requestMessage, WireConnection } from '../support/ttrpc-wire';

const pb = task.v2;
const state = (id: string) => Buffer.from(new pb.StateRequest({ id }).serialize());
const wait = (id: string) => Buffer.from(new pb.WaitRequest({ id }).serialize());

describe('the shim over ttrpc, on the wire (native)', () => {
  let shim: RunningShim;
  let fx: RuntimeFixture;
  let n = 0;
  const nextId = () => `tt-${n++}`;

  beforeAll(async () => {
    fx = nativeFixture();
    shim = await startShim('native', [], undefined, undefined, 'ttrpc');
  });
  afterAll(async () => {
    await shim.stop();
    fx.cleanup();
  });

  async function running(args: string[]): Promise<string> {
    const id = nextId();
    await shim.client.create({ id, bundle: fx.bundle(args) });
    await shim.client.start(id);
    return id;
  }

  it('runs Create, Start, Wait, Delete: sh -c "exit 7" gives 7', async () => {
    const id = nextId();
    const { pid } = await shim.client.create({ id, bundle: fx.bundle(['sh', '-c', 'exit 7']) });
    expect((await shim.client.start(id)).pid).toBe(pid);
    expect((await shim.client.wait(id)).exit_status).toBe(7);
    const deleted = await shim.client.delete(id);
    expect([deleted.pid, deleted.exit_status]).toEqual([pid, 7]);
  });

  it('sends success as ttrpc does: no status field, and an empty reply as a zero-length frame', async () => {
    const id = await running(['sleep', '100']);
    const wire = await WireConnection.open(shim.socket);
    wire.write(requestFrame(1, 'State', state(id)));
    const reply = await wire.next();
    expect([reply.streamId, reply.type, reply.hasStatus]).toEqual([1, 2, false]);
    expect(pb.StateResponse.deserialize(reply.payload).id).toBe(id);
    wire.write(requestFrame(3, 'Kill', new pb.KillRequest({ id, signal: 9 }).serialize()));
    expect(await wire.next()).toMatchObject({ streamId: 3, length: 0, hasStatus: false });
    wire.close();
    await shim.client.wait(id);
    await shim.client.delete(id);
  });

  it('answers each request on one connection as it completes: a slow Wait does not hold back the State after it', async () => {
    const id = await running(['sh', '-c', 'sleep 0.3; exit 5']);
    const wire = await WireConnection.open(shim.socket);
    wire.write(
      Buffer.concat([
        requestFrame(1, 'Wait', wait(id)),
        requestFrame(3, 'State', state(id)),
        requestFrame(5, 'Connect', new pb.ConnectRequest({ id }).serialize()),
      ]),
    );
    const first = await wire.next();
    const second = await wire.next();
    expect([first.streamId, second.streamId].sort()).toEqual([3, 5]);
    const waited = await wire.next();
    expect(waited.streamId).toBe(1);
    expect(pb.WaitResponse.deserialize(waited.payload).exit_status).toBe(5);
    wire.close();
    await shim.client.delete(id);
  });

  it('answers a frame over 4 MiB RESOURCE_EXHAUSTED on its stream, drops its body, and keeps the connection', async () => {
    const wire = await WireConnection.open(shim.socket);
    const header = Buffer.alloc(10);
    header.writeUInt32BE((4 << 20) + 1, 0);
    header.writeUInt32BE(7, 4);
    header[8] = 1;
    wire.write(Buffer.concat([header, Buffer.alloc((4 << 20) + 1, 0x41), requestFrame(9, 'State', state('ghost'))]));
    expect(await wire.next()).toMatchObject({
      streamId: 7,
      code: Code.RESOURCE_EXHAUSTED,
      message: 'message length 4194305 exceed maximum message size of 4194304',
    });
    expect(await wire.next()).toMatchObject({ streamId: 9, code: Code.NOT_FOUND });
    wire.close();
  });

  it('answers what ttrpc refuses with its own codes and texts, ignores unknown frame types, and keeps serving', async () => {
    const wire = await WireConnection.open(shim.socket);
    wire.write(requestFrame(2, 'State', state('ghost')));
    expect(await wire.next()).toMatchObject({
      streamId: 2,
      code: Code.INVALID_ARGUMENT,
      message: 'StreamID must be odd for client initiated streams',
    });
    wire.write(requestFrame(3, 'State', state('ghost'), 'containerd.task.v3.Task'));
    expect(await wire.next()).toMatchObject({
      streamId: 3,
      code: Code.UNIMPLEMENTED,
      message: 'service containerd.task.v3.Task',
    });
    wire.write(requestFrame(5, 'Attach', state('ghost')));
    expect(await wire.next()).toMatchObject({ streamId: 5, code: Code.UNIMPLEMENTED, message: 'method Attach' });
    wire.write(frame(7, 1, Buffer.from([0x0a, 0x50, 0x41])));
    expect(await wire.next()).toMatchObject({
      streamId: 7,
      code: Code.INVALID_ARGUMENT,
      message: expect.stringContaining('unmarshal request error'),
    });
    wire.write(requestFrame(9, 'State', Buffer.from([0xff, 0xff, 0xff])));
    expect(await wire.next()).toMatchObject({
      streamId: 9,
      code: Code.INVALID_ARGUMENT,
      message: expect.stringContaining('malformed State request'),
    });
    wire.write(
      Buffer.concat([
        frame(11, 3, Buffer.from('data frame of a newer ttrpc')),
        frame(13, 2, Buffer.alloc(0)),
        requestFrame(15, 'State', state('ghost')),
      ]),
    );
    expect(await wire.next()).toMatchObject({ streamId: 15, code: Code.NOT_FOUND });
    expect(wire.unread).toBe(0);
    wire.close();
  });

  it('answers at once a field whose length runs past the end of its message, in the Request or in its payload', async () => {
    // A 4 GiB length: google-protobuf alone read it byte by byte for minutes, answering no one.
    const huge = [0xff, 0xff, 0xff, 0xff, 0x0f];
    const wire = await WireConnection.open(shim.socket);
    const started = Date.now();
    wire.write(frame(1, 1, Buffer.from([0x12, ...huge])));
    expect(await wire.next()).toMatchObject({
      streamId: 1,
      code: Code.INVALID_ARGUMENT,
      message: 'unmarshal request error: a string field runs past the end of the message (6 bytes)',
    });
    wire.write(requestFrame(3, 'State', Buffer.from([0x0a, ...huge])));
    expect(await wire.next()).toMatchObject({
      streamId: 3,
      code: Code.INVALID_ARGUMENT,
      message: 'malformed State request: a string field runs past the end of the message (6 bytes)',
    });
    // An embedded message (Update's resources) 2^63 bytes long: decoded as zeros for ever.
    wire.write(requestFrame(5, 'Update', Buffer.from([0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])));
    expect(await wire.next()).toMatchObject({
      streamId: 5,
      code: Code.INVALID_ARGUMENT,
      message: 'malformed Update request: an embedded message field runs past the end of the message (10 bytes)',
    });
    expect(Date.now() - started).toBeLessThan(1000);
    wire.write(requestFrame(7, 'State', state('ghost')));
    expect(await wire.next()).toMatchObject({ streamId: 7, code: Code.NOT_FOUND });
    wire.close();
  });

  it('reads requests written one byte at a time', async () => {
    const id = await running(['sleep', '100']);
    const wire = await WireConnection.open(shim.socket);
    await wire.writeByteByByte(
      Buffer.concat([requestFrame(1, 'State', state(id)), requestFrame(3, 'State', state('ghost'))]),
    );
    expect(await wire.next()).toMatchObject({ streamId: 1, hasStatus: false });
    expect(await wire.next()).toMatchObject({ streamId: 3, code: Code.NOT_FOUND });
    wire.close();
    await shim.client.kill(id, 9);
    expect((await shim.client.wait(id)).exit_status).toBe(137);
    await shim.client.delete(id);
  });

  it('serves several connections at once; one closed mid-request or mid-frame disturbs nothing else', async () => {
    const id = await running(['sleep', '100']);
    const waiter = await WireConnection.open(shim.socket);
    const quitter = await WireConnection.open(shim.socket);
    const halfFrame = await WireConnection.open(shim.socket);
    const other = await WireConnection.open(shim.socket);
    waiter.write(requestFrame(1, 'Wait', wait(id)));
    quitter.write(requestFrame(1, 'Wait', wait(id)));
    halfFrame.write(requestFrame(1, 'State', state(id)).subarray(0, 15));
    other.write(requestFrame(1, 'State', state(id)));
    expect(await other.next()).toMatchObject({ streamId: 1, hasStatus: false });
    quitter.close();
    halfFrame.close();
    await shim.client.kill(id, 9);
    const waited = await waiter.next();
    expect(pb.WaitResponse.deserialize(waited.payload).exit_status).toBe(137);
    other.write(requestFrame(3, 'Delete', new pb.DeleteRequest({ id }).serialize()));
    expect(pb.DeleteResponse.deserialize((await other.next()).payload).exit_status).toBe(137);
    waiter.close();
    other.close();
  });

  it('listens on a socket made 0600 in a directory made 0700', () => {
    expect(statSync(shim.socket).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(shim.socket)).mode & 0o777).toBe(0o700);
  });

  it('reads a request that carries a timeout, as containerd sends State and Shutdown', async () => {
    const id = await running(['sleep', '100']);
    const wire = await WireConnection.open(shim.socket);
    wire.write(frame(1, 1, requestMessage('containerd.task.v2.Task', 'State', state(id), 2_000_000_000)));
    const reply = await wire.next();
    expect(reply.hasStatus).toBe(false);
    expect(pb.StateResponse.deserialize(reply.payload).pid).toBeGreaterThan(0);
    wire.close();
    await shim.client.kill(id, 9);
    await shim.client.wait(id);
    await shim.client.delete(id);
  });
});

describe('the same error codes and messages over ttrpc as over gRPC (native)', () => {
  it('answers NOT_FOUND, ALREADY_EXISTS and FAILED_PRECONDITION alike', async () => {
    const fx = nativeFixture();
    const shims = [await startShim('native'), await startShim('native', [], undefined, undefined, 'ttrpc')];
    const outcomes = [];
    for (const { client } of shims) {
      const seen: Array<[number, string]> = [];
      const record = async (call: Promise<unknown>) => {
        const err = await errorOf(call);
        seen.push([err.code, err.details]);
      };
      await record(client.state('ghost'));
      await client.create({ id: 'twice', bundle: fx.bundle(['sleep', '100']) });
      await record(client.create({ id: 'twice', bundle: fx.bundle(['true']) }));
      await client.start('twice');
      await record(client.start('twice'));
      await record(client.delete('twice'));
      await record(client.state('twice', 'no-exec'));
      await client.kill('twice', 9);
      await client.wait('twice');
      await record(client.kill('twice', 9));
      await client.delete('twice');
      outcomes.push(seen);
    }
    expect(outcomes[0].map(([code]) => code)).toEqual([
      Code.NOT_FOUND,
      Code.ALREADY_EXISTS,
      Code.FAILED_PRECONDITION,
      Code.FAILED_PRECONDITION,
      Code.NOT_FOUND,
      Code.NOT_FOUND,
    ]);
    expect(outcomes[1]).toEqual(outcomes[0]);
    for (const shim of shims) await shim.stop();
    fx.cleanup();
  });

  it('exits 0 after a Shutdown over ttrpc and removes its socket', async () => {
    const shim = await startShim('native', [], undefined, undefined, 'ttrpc');
    await shim.client.shutdown('none').catch(() => undefined); // the reply may race the exit
    expect(await shim.exited).toBe(0);
    expect(existsSync(shim.socket)).toBe(false);
    await shim.stop();
  });
});

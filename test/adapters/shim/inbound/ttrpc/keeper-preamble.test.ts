import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  KeeperPreamble,
  KeeperRole,
  readFirstBytes,
} from '../../../../../src/adapters/shim/inbound/ttrpc/keeper-preamble';
import { admitConnection } from '../../../../../src/adapters/shim/inbound/ttrpc/connection-admission';
import { MethodTable } from '../../../../../src/adapters/shim/inbound/ttrpc/ttrpc-dispatch';
import { TtrpcServer } from '../../../../../src/adapters/shim/inbound/ttrpc/ttrpc-server';
import { decodeResponse, frame, requestMessage } from '../../../../e2e/support/ttrpc-wire';
import { waitFor } from '../../../../support/wait-for';

/** A keeper's preamble, written here byte by byte as docs/keeper-protocol.md states it. */
function preamble(role: number, fields: string[], version = 1): Buffer {
  const body = Buffer.from(fields.map((f) => `${f}\0`).join(''));
  const head = Buffer.from([0xff, 0x53, 0x4b, 0x46, version, role, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([head, body]);
}

const echo = frame(1, 1, requestMessage('test.S', 'Echo', Buffer.from('hi')));

describe('readFirstBytes', () => {
  it('reads a relay preamble and its fields, and hands back the bytes after it', () => {
    const bytes = Buffer.concat([preamble(KeeperRole.Relay, ['keeper=/run/k.sock', 'pid=42']), echo]);
    expect(readFirstBytes(bytes)).toEqual({
      kind: 'keeper',
      preamble: { role: 2, fields: { keeper: '/run/k.sock', pid: '42' } },
      rest: echo,
    });
  });

  it('asks for more until the whole preamble is in, one byte at a time', () => {
    const bytes = preamble(KeeperRole.Relay, ['pid=1']);
    for (let n = 1; n < bytes.length; n++) expect(readFirstBytes(bytes.subarray(0, n)).kind).toBe('more');
    expect(readFirstBytes(bytes).kind).toBe('keeper');
  });

  it('takes anything else as plain ttrpc, an oversized frame whose length starts with 0xff too', () => {
    expect(readFirstBytes(echo)).toEqual({ kind: 'plain', rest: echo });
    const oversized = Buffer.from([0xff, 0, 0, 0, 0, 0, 0, 1, 1, 0]);
    expect(readFirstBytes(oversized).kind).toBe('plain');
  });

  it('names a version it does not know', () => {
    expect(readFirstBytes(preamble(2, [], 9))).toEqual({ kind: 'unknown-version', version: 9 });
  });
});

describe('TtrpcServer and the keeper preamble', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-preamble-'));
  const path = join(dir, 's.sock');
  const methods: MethodTable = new Map([['Echo', async (b: Buffer) => b]]);
  let server: TtrpcServer;
  const heard: KeeperPreamble[] = [];
  beforeAll(
    async () =>
      (server = await TtrpcServer.listen({ address: path }, new Map([['test.S', methods]]), {
        onKeeper: (p) => heard.push(p),
      })),
  );
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Writes `chunks` one write each, then collects what comes back until the server closes or `wantBytes` arrived. */
  async function exchange(chunks: Buffer[], wantBytes = Infinity): Promise<{ reply: Buffer; closed: boolean }> {
    const socket: Socket = connect(path);
    const got: Buffer[] = [];
    const done = new Promise<boolean>((resolve) => {
      socket.on('data', (d: Buffer) => {
        got.push(d);
        if (Buffer.concat(got).length >= wantBytes) resolve(false);
      });
      socket.on('close', () => resolve(true));
    });
    for (const chunk of chunks) {
      socket.write(chunk);
      await new Promise((r) => setTimeout(r, 5));
    }
    const closed = await done;
    socket.destroy();
    return { reply: Buffer.concat(got), closed };
  }

  it('serves ttrpc after a relay preamble, even when preamble and frame arrive split and joined', async () => {
    const bytes = Buffer.concat([preamble(KeeperRole.Relay, ['keeper=/k.sock', 'pid=7']), echo]);
    const chunks = [bytes.subarray(0, 3), bytes.subarray(3, 9), bytes.subarray(9, 30), bytes.subarray(30)];
    const { reply, closed } = await exchange(chunks, 10);
    expect(closed).toBe(false);
    const response = decodeResponse(reply.readUInt32BE(4), reply[8], reply.subarray(10));
    expect([response.streamId, response.code, response.payload.toString()]).toEqual([1, 0, 'hi']);
    expect(heard).toEqual([{ role: 2, fields: { keeper: '/k.sock', pid: '7' } }]);
  });

  it.each([
    ['a control connection (the runtime does not use it yet)', preamble(KeeperRole.Control, ['pid=7'])],
    ['a forget connection (no forget handler)', preamble(KeeperRole.Forget, ['task=t1'])],
    ['a preamble version it does not know', preamble(KeeperRole.Relay, ['pid=7'], 2)],
  ])('closes %s without an answer', async (_, bytes) => {
    const { reply, closed } = await exchange([Buffer.concat([bytes, echo])]);
    expect({ closed, bytes: reply.length }).toEqual({ closed: true, bytes: 0 });
  });
});

describe('admitConnection and a control connection', () => {
  it('hands a control preamble, its socket and the bytes after it to the control handler', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-admit-'));
    const path = join(dir, 'c.sock');
    const seen = new Promise<{ role: number; fields: Readonly<Record<string, string>>; first: string }>((resolve) => {
      const server = createServer((socket) =>
        admitConnection(
          socket,
          () => undefined,
          () => undefined,
          (s, p, first) => {
            resolve({ role: p.role, fields: p.fields, first: first.toString() });
            s.destroy();
            server.close();
          },
        ),
      ).listen(path);
    });
    await new Promise((r) => setTimeout(r, 20));
    const client = connect(path);
    client.on('error', () => undefined);
    client.write(Buffer.concat([preamble(KeeperRole.Control, ['keeper=/k.sock', 'pid=7']), Buffer.from('more')]));
    expect(await seen).toEqual({ role: 1, fields: { keeper: '/k.sock', pid: '7' }, first: 'more' });
    client.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('TtrpcServer and a forget connection', () => {
  it("hands the preamble to the forget handler and closes the connection once the handler is done: delete's answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-forget-'));
    const path = join(dir, 'f.sock');
    const asked: KeeperPreamble[] = [];
    let done!: () => void;
    const server = await TtrpcServer.listen({ address: path }, new Map(), {
      onForget: (p) => {
        asked.push(p);
        return new Promise<void>((resolve) => (done = resolve));
      },
    });
    try {
      const client = connect(path);
      let closed = false;
      const close = new Promise<void>((resolve) =>
        client.on('close', () => {
          closed = true;
          resolve();
        }),
      );
      client.write(preamble(KeeperRole.Forget, ['task=t1']));
      await waitFor('the forget handler', () => asked.length === 1);
      expect(asked).toEqual([{ role: 3, fields: { task: 't1' } }]);
      await new Promise((r) => setTimeout(r, 50));
      expect(closed).toBe(false);
      done();
      await close;
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

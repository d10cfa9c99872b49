import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SocketListener } from '../../../../src/adapters/shim/os/socket-listener';

function dial(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path, () => resolve(socket));
    socket.once('error', reject);
  });
}

function firstBytes(socket: Socket): Promise<string> {
  return new Promise((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString())));
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('SocketListener (the shim socket, bound before a transport serves it)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-listener-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts before a transport claims it, then hands over the waiting connections with their bytes, and new ones', async () => {
    const path = join(dir, 'early', 'shim.sock');
    const listener = await SocketListener.listen({ address: `unix:${path}` });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const early = await dial(path);
    early.write('sent before anyone served');
    await settle();

    const received: Promise<string>[] = [];
    listener.accept((socket) => received.push(firstBytes(socket)));
    expect(await received[0]).toBe('sent before anyone served');

    const later = await dial(path);
    later.write('sent after');
    await settle();
    expect(received).toHaveLength(2);
    expect(await received[1]).toBe('sent after');
    early.destroy();
    later.destroy();
    listener.close();
  });

  it('hands over only the waiting connections still open: one closed by its peer is dropped', async () => {
    const path = join(dir, 'reset.sock');
    const listener = await SocketListener.listen({ address: path });
    const gone = await dial(path);
    const live = await dial(path);
    gone.destroy();
    live.write('still here');
    await settle();
    const claimed: Socket[] = [];
    try {
      listener.accept((socket) => claimed.push(socket));
      expect(claimed.map((socket) => socket.destroyed)).toEqual([false]);
      expect(await firstBytes(claimed[0])).toBe('still here');
    } finally {
      live.destroy();
      listener.close();
    }
  });

  it('on close stops accepting, ends the connections still waiting and removes the socket file', async () => {
    const path = join(dir, 'close.sock');
    const listener = await SocketListener.listen({ address: path });
    const waiting = await dial(path);
    const ended = new Promise((resolve) => waiting.once('close', resolve));
    await settle();
    listener.close();
    await ended;
    expect(existsSync(path)).toBe(false);
    await expect(dial(path)).rejects.toThrow('ENOENT');
  });
});

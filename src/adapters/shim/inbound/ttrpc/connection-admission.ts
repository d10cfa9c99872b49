import { Socket } from 'node:net';
import { KeeperPreamble, KeeperRole, readFirstBytes } from './keeper-preamble';

/** The longest preamble: its 8-byte head and 64 KiB of fields. */
const MAX_PREAMBLE = 8 + 0xffff;

/**
 * Reads a connection's first bytes and hands it to `serve` when it speaks ttrpc: plainly
 * (containerd, `skiff task --address`, tests), or after a keeper's relay preamble. A
 * keeper's control connection goes to `control` (closed when there is none: only containerd's
 * serving process behind pod keepers has one, docs/keeper-protocol.md, "As built"). A forget
 * connection (`delete`'s, once a task's pod keeper died) goes to `forget`, and is closed once it
 * settles: its close is the answer `delete` waits for. Without a handler, and for a preamble
 * version this server does not know, the connection is closed. `serve` and `control` get the
 * bytes read past the preamble, the socket paused; `onKeeper` hears each relay's preamble (and its socket) first.
 */
export function admitConnection(
  socket: Socket,
  serve: (first: Buffer) => void,
  onKeeper: (preamble: KeeperPreamble, socket: Socket) => void = () => undefined,
  control?: (socket: Socket, preamble: KeeperPreamble, first: Buffer) => void,
  forget?: (preamble: KeeperPreamble) => Promise<void>,
): void {
  let seen: Buffer = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
    const first = readFirstBytes(seen);
    if (first.kind === 'more' && seen.length <= MAX_PREAMBLE) return;
    socket.off('data', onData);
    socket.pause();
    if (first.kind === 'plain') serve(first.rest);
    else if (first.kind === 'keeper' && first.preamble.role === KeeperRole.Relay) {
      onKeeper(first.preamble, socket);
      serve(first.rest);
    } else if (first.kind === 'keeper' && first.preamble.role === KeeperRole.Control && control)
      control(socket, first.preamble, first.rest);
    else if (first.kind === 'keeper' && first.preamble.role === KeeperRole.Forget && forget)
      void forget(first.preamble)
        .catch(() => undefined)
        .finally(() => socket.destroy());
    else socket.destroy();
  };
  // A peer that resets before its first bytes must not crash the server.
  socket.on('error', () => undefined);
  socket.on('data', onData);
}

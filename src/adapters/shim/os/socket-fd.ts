import { Socket } from 'node:net';

/** The descriptor under a connected net.Socket (libuv's handle), for what Node cannot do on it; undefined once closed. */
export function socketFd(socket: Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  return fd === undefined || fd < 0 ? undefined : fd;
}

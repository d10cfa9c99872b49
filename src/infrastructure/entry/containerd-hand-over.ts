import { Socket } from 'node:net';
import { TaskService } from '../../application/shim/task/task-service';
import { TtrpcServer } from '../../adapters/shim/inbound/ttrpc/ttrpc-server';
import { ForwardedEvents } from '../../adapters/shim/outbound/events/forwarded-events';
import { PodKeepers } from '../../adapters/shim/outbound/keeper/pod-keepers';
import { nativeAddon } from '../../adapters/shim/os/native-addon';
import { socketFd } from '../../adapters/shim/os/socket-fd';

/** Calls that change something get this long to finish once a hand-over began. */
const HAND_OVER_GRACE_MS = 10_000;
/** How long the last events get to reach containerd (as when the server leaves). */
const EVENTS_FLUSH_MS = 5000;

export interface HandOver {
  readonly server: TtrpcServer;
  readonly keepers: PodKeepers;
  readonly service: TaskService;
  readonly events: ForwardedEvents;
  /** The group socket's listener this process was given. */
  readonly listenerFd: number;
  readonly log: (line: string) => void;
}

/**
 * Hands this serving process's work to a new one (docs/upgrade.md, "What a hand-over does") and
 * returns the new one's pid. In order: the keepers are told (`Q`); the listener is kept open but
 * no longer accepted from, so every connection made from now on waits in its backlog for the
 * next process; each connection takes no more requests, serves those it has, and closes once
 * those that change something are answered (the keepers send the read-only ones still in
 * flight, a Wait, to the next process); every keeper exit taken is reported and acked; every
 * task record is written; the events reach containerd. Only then is the next process started,
 * from the package now on disk, on the same listener: it takes the records over as after a
 * crash, with nothing left in flight.
 */
export async function handOverTo(h: HandOver): Promise<number> {
  const listener = await settleForHandOver(h);
  // The same program and arguments: bin/containerd-daemon.js, whose files are the new version's after an upgrade.
  const argv = [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
  return nativeAddon().spawn(process.execPath, argv, null, process.cwd(), [-1, -1, 2, listener]);
}

/**
 * The hand-over's steps up to the successor's start: nothing in flight, every record written,
 * the events sent; the listener's copy that keeps connections waiting. A release (SIGHUP, from
 * the node daemon's supervisor at `systemctl stop`: docs/node-daemon.md) stops here, and the
 * keepers send what they kept to the serving process they find or start next.
 */
export async function settleForHandOver(h: HandOver): Promise<number> {
  const addon = nativeAddon();
  const listener = addon.dupFd(h.listenerFd);
  const stopReading = (socket: Socket) => {
    const fd = socketFd(socket);
    if (fd !== undefined) addon.shutdownRead(fd);
  };
  h.keepers.announceHandOver();
  const cut = await h.server.handOver(stopReading, HAND_OVER_GRACE_MS);
  if (cut > 0)
    h.log(
      `hand-over: ${cut} connection(s) still had calls in flight after ${HAND_OVER_GRACE_MS} ms; ` +
        'the pod keepers answer them UNAVAILABLE',
    );
  await h.keepers.handOver();
  await h.service.recordsSettled();
  await h.events.flush(EVENTS_FLUSH_MS);
  return listener;
}

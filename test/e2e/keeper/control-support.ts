import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readSync, rmSync } from 'node:fs';
import { connect, createServer, Server, Socket } from 'node:net';
import { join } from 'node:path';
import { admitConnection } from '../../../src/adapters/shim/inbound/ttrpc/connection-admission';
import { KeeperControl, KeptExit } from '../../../src/adapters/shim/outbound/keeper/keeper-control';
import { nativeAddon } from '../../../src/adapters/shim/os/native-addon';
import { waitFor } from '../../support/wait-for';
import { alive, BUILT_SHIM, groupServers, Layout, start } from './keeper-support';

/** One control connection as the test's serving side saw it: what came on it, in order. */
export interface SeenControl {
  readonly control: KeeperControl;
  readonly hellos: Array<Array<{ key: string; pid: number }>>;
  readonly exits: KeptExit[];
  closed: boolean;
}

/**
 * A real keeper (started by `start`) whose serving process is this test: the serving process
 * `start` made is killed and the test listens on its group socket, holding relays unanswered
 * and taking control connections with KeeperControl. A containerd connection (one that makes no
 * call: the keeper then knows of no task by it) makes the keeper open its first control connection.
 */
export class ServingSide {
  readonly controls: SeenControl[] = [];
  /** While false, control connections are closed at once (a serving process away). */
  accepting = true;
  private readonly held: Socket[] = [];
  private server?: Server;
  private containerd?: Socket;
  socket = '';

  constructor(private readonly l: Layout) {}

  async start(ns: string, id: string, shim = BUILT_SHIM, env: NodeJS.ProcessEnv = {}): Promise<void> {
    const started = start(shim, this.l, ns, id, env);
    if (started.status !== 0) throw new Error(`start failed: ${started.stderr}`);
    this.socket = started.socket;
    const [{ pid, socket: group }] = groupServers(this.l);
    process.kill(pid, 'SIGKILL');
    await waitFor('the serving process start made to end', () => !alive(pid));
    rmSync(group);
    this.server = createServer((conn) => {
      this.held.push(conn);
      admitConnection(
        conn,
        () => undefined,
        () => undefined,
        (socket, _preamble, first) => {
          if (!this.accepting) return void socket.destroy();
          const seen: SeenControl = {
            control: new KeeperControl(socket, first, nativeAddon().sendWithFds),
            hellos: [],
            exits: [],
            closed: false,
          };
          seen.control.on('hello', (h) => seen.hellos.push(h));
          seen.control.on('exit', (e) => seen.exits.push(e));
          seen.control.on('close', () => (seen.closed = true));
          this.controls.push(seen);
        },
      );
    });
    await new Promise<void>((resolve) => this.server?.listen(group, resolve));
    this.containerd = connect(started.socket);
    this.containerd.on('error', () => undefined);
    await this.next(0);
  }

  /** The control connection number `index` (from 0), once it has said hello. */
  async next(index: number): Promise<SeenControl> {
    await waitFor(
      `control connection ${index + 1} and its hello`,
      () => (this.controls[index]?.hellos.length ?? 0) > 0,
    );
    return this.controls[index];
  }

  get current(): SeenControl {
    return this.controls[this.controls.length - 1];
  }

  /** Closes the containerd connection that made the keeper connect (it made no call). */
  closeContainerd(): void {
    this.containerd?.destroy();
  }

  close(): void {
    this.containerd?.destroy();
    this.held.forEach((s) => s.destroy());
    this.server?.close();
  }
}

/** A FIFO in `dir`: its path, a read-write descriptor (never EOF, never ENXIO) to read or hold it. */
export function fifo(dir: string, name: string): { path: string; fd: number } {
  const path = join(dir, name);
  execFileSync('mkfifo', ['-m', '0600', path]);
  return { path, fd: openSync(path, constants.O_RDWR | constants.O_NONBLOCK) };
}

export function closeAll(fds: number[]): void {
  fds.splice(0).forEach((fd) => closeSync(fd));
}

/** A Python to stand in for runc with a console socket (node-gyp needs one too). */
export const PYTHON = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => existsSync(p));

/** What a non-blocking descriptor has to read now, as text. */
export function drain(fd: number): string {
  const buf = Buffer.alloc(65536);
  let out = '';
  for (;;) {
    try {
      const n = readSync(fd, buf);
      if (n === 0) return out;
      out += buf.toString('utf8', 0, n);
    } catch {
      return out;
    }
  }
}

/**
 * Stands in for `runc create` with a console socket: makes a pty, sends its master to the console
 * socket, starts `sh -c script` on the pty's other side as a daemon, writes its pid, exits 0.
 */
export const TERMINAL_HELPER = `
import os, socket, sys, fcntl, termios
console, pid_file, script = sys.argv[1:4]
master, slave = os.openpty()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(console)
socket.send_fds(s, [b'm'], [master])
s.close()
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.closerange(3, 1024)
    os.execv('/bin/sh', ['sh', '-c', script])
open(pid_file, 'w').write(str(pid))
`;

import { EventEmitter } from 'node:events';
import { Socket } from 'node:net';
import { socketFd } from '../../os/socket-fd';
import { decodeControl, encodeControl } from './control-message';

/**
 * The serving process's side of a pod keeper's control connection (docs/keeper-protocol.md,
 * "The control connection"): requests out (with their descriptors, through the addon's
 * sendWithFds: a net.Socket cannot send them), the keeper's hello, replies and exits in.
 * The keeper sends nothing with descriptors, so reading stays the net.Socket's.
 */
export type SendWithFds = (socketFd: number, data: Buffer, fds: readonly number[]) => void;

/** One descriptor for the program and what it is to the keeper (the protocol's roles). */
export interface LaunchFd {
  readonly role: '0' | '1' | '2' | '3' | '4' | '5' | 'H' | 'I' | 'O' | 'N';
  readonly fd: number;
}

export interface LaunchRequest {
  readonly key: string;
  readonly argv: readonly string[];
  /** `NAME=value` entries: the program's whole environment (omitted: the keeper's own). */
  readonly env?: readonly string[];
  readonly pidFile?: string;
  readonly consoleSocket?: string;
  readonly fds?: readonly LaunchFd[];
}

export interface Launched {
  /** waitpid's raw status of the program; -1 when the keeper could not do its part. */
  readonly status: number;
  /** The process kept under the key; 0 when none. */
  readonly pid: number;
  /** '' when none. */
  readonly error: string;
}

/**
 * `s`: how the keeper's start handshake with a created init ended (docs/keeper-protocol.md,
 * `S`): started; dead (the init ended without its byte: runc's "container process is already
 * dead"); absent (no exec fifo); failed (the keeper could not do its part: `error` says why).
 */
export type StartOutcome = 'started' | 'dead' | 'absent' | 'failed';

export interface KeptExit {
  readonly key: string;
  readonly pid: number;
  readonly status: number;
  readonly at: { readonly seconds: number; readonly nanoseconds: number };
}

export interface KeeperControlEvents {
  hello: [Array<{ key: string; pid: number }>];
  exit: [KeptExit];
  close: [];
}

export class KeeperControl extends EventEmitter<KeeperControlEvents> {
  private seq = 0;
  private buffered: Buffer = Buffer.alloc(0);
  private readonly waiting = new Map<
    string,
    { resolve: (fields: readonly string[]) => void; reject: (err: Error) => void }
  >();
  private closed = false;
  private reading = true;

  /** `socket` is past its preamble (connection-admission.ts), `first` the bytes read after it. */
  constructor(
    private readonly socket: Socket,
    first: Buffer,
    private readonly sendWithFds: SendWithFds,
  ) {
    super();
    socket.on('data', (chunk: Buffer) => this.take(chunk));
    socket.on('close', () => this.end());
    socket.on('error', () => undefined);
    if (first.length > 0) queueMicrotask(() => this.take(first));
    socket.resume();
  }

  launch(request: LaunchRequest): Promise<Launched> {
    const fds = request.fds ?? [];
    return this.ask(
      'L',
      [
        request.key,
        request.pidFile ?? '',
        request.consoleSocket ?? '',
        fds.map((f) => f.role).join(''),
        ...(request.env ?? []),
        ...request.argv,
      ],
      fds.map((f) => f.fd),
    ).then(([status, pid, error]) => ({ status: Number(status), pid: Number(pid), error }));
  }

  /** '' on success, else the keeper's error text. */
  resize(key: string, width: number, height: number): Promise<string> {
    return this.ask('R', [key, String(width), String(height)], []).then(([error]) => error);
  }

  /** `S`: runc's start handshake with `key`'s init on its exec fifo; resolves once it is over. */
  start(key: string, fifo: string): Promise<{ outcome: StartOutcome; error: string }> {
    return this.ask('S', [key, fifo], []).then(([outcome, error]) => ({
      outcome: ['started', 'dead', 'absent'].includes(outcome) ? (outcome as StartOutcome) : 'failed',
      error,
    }));
  }

  closeStdin(key: string): void {
    this.send('C', [key], []);
  }

  ack(key: string): void {
    this.send('A', [key], []);
  }

  /** `Q`: this serving process hands over (docs/upgrade.md); the closes that follow are not losses. */
  handingOver(): void {
    this.send('Q', [], []);
  }

  release(key: string): void {
    this.send('D', [key], []);
  }

  close(): void {
    this.socket.destroy();
  }

  private ask(type: string, fields: readonly string[], fds: readonly number[]): Promise<readonly string[]> {
    const seq = String(++this.seq);
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error('the pod keeper closed its control connection'));
      this.waiting.set(seq, { resolve, reject });
      try {
        this.send(type, [seq, ...fields], fds);
      } catch (err) {
        this.waiting.delete(seq);
        reject(err as Error);
      }
    });
  }

  private send(type: string, fields: readonly string[], fds: readonly number[]): void {
    const fd = socketFd(this.socket);
    if (this.closed || fd === undefined) throw new Error('the pod keeper closed its control connection');
    this.sendWithFds(fd, encodeControl(type, fields), fds);
  }

  /**
   * Reads no further message (a hand-over, docs/upgrade.md): what the keeper sends from now on
   * waits for the next serving process, which it sends again to (its exits until acked).
   */
  stopReading(): void {
    this.reading = false;
    this.socket.pause();
  }

  private take(chunk: Buffer): void {
    if (!this.reading) return;
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const decoded = decodeControl(this.buffered);
    this.buffered = decoded.rest;
    for (const { type, fields } of decoded.messages) {
      if (type === 'H') {
        const held: Array<{ key: string; pid: number }> = [];
        for (let i = 0; i + 1 < fields.length; i += 2) held.push({ key: fields[i], pid: Number(fields[i + 1]) });
        this.emit('hello', held);
      } else if (type === 'E' && fields.length === 5) {
        const [key, pid, status, seconds, nanoseconds] = fields;
        this.emit('exit', {
          key,
          pid: Number(pid),
          status: Number(status),
          at: { seconds: Number(seconds), nanoseconds: Number(nanoseconds) },
        });
      } else if (type === 'l' || type === 'r' || type === 's') {
        const asked = this.waiting.get(fields[0]);
        this.waiting.delete(fields[0]);
        asked?.resolve(fields.slice(1));
      } else return void this.socket.destroy();
    }
    if (decoded.malformed) this.socket.destroy();
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    const lost = new Error('the pod keeper closed its control connection');
    this.waiting.forEach((asked) => asked.reject(lost));
    this.waiting.clear();
    this.emit('close');
  }
}

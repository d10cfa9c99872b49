import { accessSync, closeSync, constants, statSync } from 'node:fs';
import { Socket } from 'node:net';
import { FailedPreconditionError, InvalidArgumentError } from '../../../../../domain/shared/errors';
import { quoted } from '../../../../../domain/shared/quoted';
import { nativeAddon } from '../../../os/native-addon';
import type { LaunchFd } from '../../keeper/keeper-control';

/**
 * A `binary://` or `binary-v2://` log URI, read as containerd's runc shim reads it
 * (process.NewBinaryCmd). The two differ in readiness only (containerd's docs/runtime-v2.md,
 * "Logging", since 2.2): a `binary://` logger is ready at a byte or end-of-file on its fd 5, a
 * `binary-v2://` one only once it wrote a byte there.
 */
export interface BinaryLogUri {
  readonly scheme: 'binary' | 'binary-v2';
  readonly path: string;
  /** Each query key, then its first value ("" when none): `?id=1&x` is `id 1 x ""`. */
  readonly args: readonly string[];
}

/**
 * The program and its arguments. The runc shim runs the URI's path whatever its host, and a
 * query's keys with their first values; Go's map gives its keys in no order, here they keep
 * the URI's.
 */
export function parseBinaryLogUri(value: string, subject: string): BinaryLogUri {
  const scheme = value.startsWith('binary-v2://') ? 'binary-v2' : 'binary';
  const invalid = (why: string) =>
    new InvalidArgumentError(
      `${subject}: stdout ${quoted(value)} is not a valid ${scheme}:// URI (${why}; use ${scheme}:///absolute/path?arg=value)`,
      'STDIO.BINARY_URI',
    );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('it does not parse');
  }
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    // URIError: a `%` that starts no escape, or escapes that are no UTF-8 (`%E0%A4%A`).
    throw invalid('its path has a malformed % escape');
  }
  const args: string[] = [];
  const seen = new Set<string>();
  for (const [key, first] of url.searchParams) {
    if (seen.has(key)) continue;
    seen.add(key);
    args.push(key, first);
  }
  return { scheme, path, args };
}

/** The logger must be a program that can be run: the runc shim's Create fails at its start otherwise. */
function checkProgram(uri: BinaryLogUri, value: string, subject: string): void {
  let problem = '';
  try {
    if (!uri.path.startsWith('/')) problem = 'is not an absolute path';
    else if (!statSync(uri.path).isFile()) problem = 'is not a file';
    else accessSync(uri.path, constants.X_OK);
  } catch (err) {
    problem = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be run';
  }
  if (problem !== '')
    throw new InvalidArgumentError(
      `${subject}: the logger ${JSON.stringify(uri.path)} of ${JSON.stringify(value)} ${problem}; install it or fix the log URI`,
      'STDIO.BINARY_MISSING',
    );
}

/**
 * A `binary://` log URI's pipes (containerd's pkg/process/io.go, NewBinaryIO; docs/containerd.md,
 * "Log URIs"): the process writes stdout and stderr into two pipes whose read ends are the
 * logger's fds 3 and 4, and the logger writes to or closes its fd 5 once ready. The task's pod
 * keeper runs the logger (roles `3` `4` `5`, docs/keeper-protocol.md), so it outlives the serving
 * process as the container does; this process keeps none of the descriptors once the logger
 * and the process have theirs, so the logger reads end-of-file when the process's output ends.
 */
export class BinaryLog {
  readonly uri: BinaryLogUri;
  private readonly open = new Set<number>();
  readonly stdout: number;
  readonly stderr: number;
  private readonly loggerFds: LaunchFd[];
  private readonly readyRead: number;

  constructor(value: string, subject: string) {
    this.uri = parseBinaryLogUri(value, subject);
    checkProgram(this.uri, value, subject);
    const addon = nativeAddon();
    try {
      const [outR, outW] = this.keep(addon.pipe());
      const [errR, errW] = this.keep(addon.pipe());
      const [readyR, readyW] = this.keep(addon.pipe());
      this.stdout = outW;
      this.stderr = errW;
      this.readyRead = readyR;
      this.loggerFds = [
        { role: '3', fd: outR },
        { role: '4', fd: errR },
        { role: '5', fd: readyW },
      ];
    } catch (err) {
      this.release();
      throw err;
    }
  }

  private keep(pair: [number, number]): [number, number] {
    for (const fd of pair) this.open.add(fd);
    return pair;
  }

  /** What the keeper hands the logger, by role. */
  get fds(): readonly LaunchFd[] {
    return this.loggerFds;
  }

  /** The logger's command line with its environment: the runc shim gives it these two variables only. */
  launch(id: string, namespace: string): { argv: string[]; env: string[] } {
    return {
      argv: [this.uri.path, ...this.uri.args],
      env: [`CONTAINER_ID=${id}`, `CONTAINER_NAMESPACE=${namespace}`],
    };
  }

  /**
   * The logger runs with its copies: this process's go, then its readiness is awaited as the
   * runc shim awaits it, with no time limit: a byte on fd 5, or for `binary://` end-of-file too
   * (a logger that exits at once is ready). A `binary-v2://` logger that closes fd 5 without a
   * byte fails the process's start, in the runc shim's words.
   */
  async ready(subject: string): Promise<void> {
    for (const { fd } of this.loggerFds) this.close(fd);
    const fd = this.readyRead;
    this.open.delete(fd);
    const byte = await new Promise<boolean>((resolve) => {
      const socket = new Socket({ fd, readable: true, writable: false });
      const done = (got: boolean) => () => {
        socket.destroy();
        resolve(got);
      };
      socket.once('data', done(true));
      socket.once('end', done(false));
      socket.once('error', done(false));
    });
    if (!byte && this.uri.scheme === 'binary-v2')
      throw new FailedPreconditionError(
        `${subject}: logging binary ${JSON.stringify(this.uri.path)} did not call ready (it may have crashed or exited prematurely)`,
        'STDIO.BINARY_READY',
      );
  }

  /** The process has its copies of the write ends: only it (and what it starts) holds them now. */
  afterRunc(): void {
    this.close(this.stdout);
    this.close(this.stderr);
  }

  release(): void {
    for (const fd of this.open) closeSync(fd);
    this.open.clear();
  }

  private close(fd: number): void {
    if (!this.open.delete(fd)) return;
    closeSync(fd);
  }
}

import { closeSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { ProcessExit } from '../../../domain/shim/exit-status';
import { watchExit } from './exit-watch';
import { DEFAULT_PATH, findInPath } from './find-executable';
import { nativeAddon } from './native-addon';

/** A descriptor the program gets as its own (`runc create` hands them on), or /dev/null. */
export type ProgramStdio = number | 'ignore';

export interface ProgramOptions {
  /** The program's stdin, stdout and stderr; without them stdout and stderr are captured. */
  readonly stdio?: readonly [ProgramStdio, ProgramStdio, ProgramStdio];
  /** Written to its stdin (small: it must fit a pipe's buffer, as `runc update` JSON does). */
  readonly input?: string;
  /** Its environment, `NAME=value` each; without it this process's, as it is. */
  readonly env?: readonly string[];
}

export interface ProgramResult extends ProcessExit {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a helper program (runc, mount, criu) with an argv array, never a shell, and
 * resolves once it has exited and its output was read. It is started with posix_spawn
 * and its exit learnt through a pidfd, as the native runtime's processes are: no copy of
 * the shim's page tables per call (libuv forks, ~1.3 ms in a 60 MB process), and the
 * subreaper's orphan sweep knows the pid is taken. A program that cannot be started
 * rejects with the errno error (`code` ENOENT for a missing one).
 */
export function runProgram(
  file: string,
  args: readonly string[],
  options: ProgramOptions = {},
): Promise<ProgramResult> {
  const path = file.includes('/') ? file : findInPath(file, process.env.PATH ?? DEFAULT_PATH);
  if (path === undefined)
    return Promise.reject(Object.assign(new Error(`${file}: not found in PATH`), { code: 'ENOENT' }));
  const pipes: number[] = [];
  const pipe = (): [number, number] => {
    const ends = nativeAddon().pipe();
    pipes.push(...ends);
    return ends;
  };
  try {
    const input = options.input === undefined ? undefined : pipe();
    const out = options.stdio === undefined ? pipe() : undefined;
    const err = options.stdio === undefined ? pipe() : undefined;
    const stdio = options.stdio ?? ['ignore', out?.[1] ?? 'ignore', err?.[1] ?? 'ignore'];
    const fds = stdio.map((s) => (s === 'ignore' ? -1 : s));
    if (input !== undefined) fds[0] = input[0];
    const pid = nativeAddon().spawn(path, [file, ...args], options.env ?? null, process.cwd(), fds);
    // Watched in the spawn's tick: the orphan sweep must never take this exit.
    const exited = new Promise<ProcessExit>((resolve) => watchExit(pid, resolve));
    for (const end of [input?.[0], out?.[1], err?.[1]]) if (end !== undefined) closeSync(end);
    if (input !== undefined) {
      writeAll(input[1], options.input ?? '');
      closeSync(input[1]);
    }
    pipes.length = 0;
    return Promise.all([exited, readAll(out?.[0]), readAll(err?.[0])]).then(([exit, stdout, stderr]) => ({
      ...exit,
      stdout,
      stderr,
    }));
  } catch (error) {
    for (const fd of pipes) closeSync(fd);
    return Promise.reject(error);
  }
}

function writeAll(fd: number, text: string): void {
  const data = Buffer.from(text);
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset);
}

/** Everything written to a pipe until end-of-file, read without blocking a thread. */
function readAll(fd: number | undefined): Promise<string> {
  if (fd === undefined) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = new Socket({ fd, readable: true, writable: false });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

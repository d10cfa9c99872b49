import { closeSync, constants, openSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError } from '../../../../../domain/shared/errors';
import { Stdio } from '../../../../../domain/shim/task-process';
import { readRegularFile, unreadableReason } from '../../../../shared/helpers/no-follow-file';
import { isBinaryLogUri, resolveStdioTarget, StreamName } from '../stdio/stdio-target';

/**
 * A container's stdio as criu must be told of it. containerd's runc shim gives runc pipes, which
 * criu dumps by their inode and runc restores onto the new stdio (descriptors.json,
 * `--inherit-fd`); skiff gives the container the client's FIFOs themselves (or a log file), on a
 * mount the container does not see, which criu cannot dump ("Can't lookup mount=N for fd=0").
 * So each such descriptor is named to criu as external at the dump (`external file[mnt:ino]`),
 * recorded beside the images, and handed back at the restore as the same-numbered descriptor of
 * the restore, which is the new task's stdio (`inherit-fd fd[N]:file[mnt:ino]`). runc has no flag
 * for either: criu reads them from the file CRIU_CONFIG_FILE names, in its `swrk` mode too.
 */
export interface ExternalStdio {
  readonly fd: number;
  /** criu's key, `file[<mnt_id hex>:<inode hex>]`. */
  readonly key: string;
}

/** Beside criu's images in the checkpoint directory (and so in containerd's checkpoint archive). */
export const STDIO_RECORD = 'skiff-stdio.json';

export function criuFileKey(mntId: number, ino: bigint): string {
  return `file[${mntId.toString(16)}:${ino.toString(16)}]`;
}

/**
 * criu's key of the file descriptor `fd` of process `pid` is open on by path (a FIFO or a
 * file, not a pipe or a socket), or undefined when it is none of those or not open.
 */
export function openFileKey(pid: number, fd: number, proc = '/proc'): string | undefined {
  try {
    const path = join(proc, String(pid), 'fd', String(fd));
    if (!readlinkSync(path).startsWith('/')) return undefined;
    const st = statSync(path, { bigint: true });
    if (!st.isFIFO() && !st.isFile()) return undefined;
    const mnt = /^mnt_id:\s*(\d+)/m.exec(readFileSync(join(proc, String(pid), 'fdinfo', String(fd)), 'utf8'));
    return mnt === null ? undefined : criuFileKey(Number(mnt[1]), st.ino);
  } catch {
    return undefined;
  }
}

/**
 * criu's key of the FIFO or file a stdio string names, as the kernel resolves it here: opened
 * (a FIFO without waiting for its other end; nothing is read), its key read from this
 * process's descriptor, closed. The serving process and the pod keeper open the stdio they
 * hand runc in this mount namespace, so the container's descriptors have the same key.
 */
function stdioFileKey(value: string, stream: StreamName, proc: string): string | undefined {
  let target;
  try {
    target = resolveStdioTarget(value, stream, 'criu');
  } catch {
    return undefined;
  }
  if (target.kind === 'none') return undefined;
  let fd: number;
  try {
    fd = openSync(target.path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return undefined;
  }
  try {
    return openFileKey(process.pid, fd, proc);
  } finally {
    closeSync(fd);
  }
}

/**
 * The FIFOs and files skiff gave a container's init as its stdio, which criu must take as
 * external: one entry per file, at its lowest stream number. Read from the stdio strings, not
 * from the init's descriptors 0-2: a shell in a redirection has moved its stdout to descriptor
 * 10 for the while, and a dump then found the FIFO there unnamed (CI, 2026-12-04: "Can't
 * lookup mount=30 for fd=10"). A key names a file wherever it is open, so criu takes it at any
 * descriptor of any process of the container. A terminal or a logger is no FIFO it holds.
 */
export function externalStdio(stdio: Stdio, proc = '/proc'): ExternalStdio[] {
  if (stdio.terminal || isBinaryLogUri(stdio.stdout)) return [];
  const out: ExternalStdio[] = [];
  const streams: readonly StreamName[] = ['stdin', 'stdout', 'stderr'];
  streams.forEach((stream, fd) => {
    const key = stdioFileKey(stdio[stream], stream, proc);
    if (key !== undefined && !out.some((e) => e.key === key)) out.push({ fd, key });
  });
  return out;
}

/** criu's configuration text for a dump (`external`) or a restore (`inherit-fd`) of those descriptors. */
export function criuStdioConfig(entries: readonly ExternalStdio[], phase: 'dump' | 'restore'): string {
  return entries.map((e) => (phase === 'dump' ? `external ${e.key}\n` : `inherit-fd fd[${e.fd}]:${e.key}\n`)).join('');
}

export function writeStdioRecord(imageDir: string, entries: readonly ExternalStdio[]): void {
  writeFileSync(join(imageDir, STDIO_RECORD), JSON.stringify(entries), { mode: 0o600 });
}

/** Three entries are a hundred bytes: anything near this is no record of ours. */
const MAX_STDIO_RECORD = 64 * 1024;

/**
 * The record a dump left beside its images; none (an image from containerd's runc shim, say) is
 * no entries. The images may come from an archive anyone made, and the serving process reads on
 * its event loop: a link, a FIFO, a device or a file over 64 KiB there fails the restore, in one
 * InvalidArgument line, without waiting on it or reading it whole.
 */
export function readStdioRecord(imageDir: string): ExternalStdio[] {
  const path = join(imageDir, STDIO_RECORD);
  let text: string | undefined;
  try {
    text = readRegularFile(path, { limit: MAX_STDIO_RECORD });
  } catch (err) {
    throw new InvalidArgumentError(
      `the checkpoint's ${path} ${unreadableReason(err)}: it is not a record skiff wrote; restore from another checkpoint`,
      'CRIU.STDIO_RECORD',
    );
  }
  return text === undefined ? [] : parseStdioRecord(text);
}

/**
 * The entries of a record's text that name a stdio descriptor (0-2) and a key of criu's form:
 * whatever else it holds is dropped, so no text of it reaches criu's configuration but a key.
 */
export function parseStdioRecord(text: string): ExternalStdio[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(
    (e): e is ExternalStdio =>
      typeof e === 'object' &&
      e !== null &&
      Number.isInteger((e as ExternalStdio).fd) &&
      (e as ExternalStdio).fd >= 0 &&
      (e as ExternalStdio).fd <= 2 &&
      typeof (e as ExternalStdio).key === 'string' &&
      /^file\[[0-9a-f]+:[0-9a-f]+\]$/.test((e as ExternalStdio).key),
  );
}

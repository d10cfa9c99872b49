import { readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError } from '../../../../../domain/shared/errors';
import { readRegularFile, unreadableReason } from '../../../../shared/helpers/no-follow-file';

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

/** What one of the init's stdio descriptors is, as /proc shows it. */
export interface FdFacts {
  /** readlink of /proc/PID/fd/N: a path, or `pipe:[ino]`, `socket:[ino]`, `anon_inode:...`. */
  readonly link: string;
  readonly kind: 'fifo' | 'file' | 'other';
  readonly ino: bigint;
  readonly mntId: number;
}

/**
 * Whether criu must be told a descriptor is external: a FIFO or a file opened by path. Pipes,
 * sockets and terminals it handles itself, and /dev/null runc reopens inside the container.
 */
export function isExternal(facts: FdFacts): boolean {
  return facts.link.startsWith('/') && (facts.kind === 'fifo' || facts.kind === 'file');
}

export function criuFileKey(mntId: number, ino: bigint): string {
  return `file[${mntId.toString(16)}:${ino.toString(16)}]`;
}

/** /proc's facts of a process's descriptor, or undefined when it is not open (or the process gone). */
export function fdFacts(pid: number, fd: number, proc = '/proc'): FdFacts | undefined {
  try {
    const path = join(proc, String(pid), 'fd', String(fd));
    const link = readlinkSync(path);
    const st = statSync(path, { bigint: true });
    const info = readFileSync(join(proc, String(pid), 'fdinfo', String(fd)), 'utf8');
    const mnt = /^mnt_id:\s*(\d+)/m.exec(info);
    const kind = st.isFIFO() ? 'fifo' : st.isFile() ? 'file' : 'other';
    return {
      link,
      kind,
      ino: st.ino,
      mntId: mnt === null ? -1 : Number(mnt[1]),
    };
  } catch {
    return undefined;
  }
}

/** The init's stdio (0, 1, 2) that criu must take as external; one entry per file, at its lowest descriptor. */
export function externalStdio(pid: number, proc = '/proc'): ExternalStdio[] {
  const out: ExternalStdio[] = [];
  for (const fd of [0, 1, 2]) {
    const facts = fdFacts(pid, fd, proc);
    if (facts === undefined || facts.mntId < 0 || !isExternal(facts)) continue;
    const key = criuFileKey(facts.mntId, facts.ino);
    if (!out.some((e) => e.key === key)) out.push({ fd, key });
  }
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
  if (text === undefined) return [];
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

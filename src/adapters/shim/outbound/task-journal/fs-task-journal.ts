import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmdirSync,
  unlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { JournalContents, TaskJournal, TaskRecord } from '../../../../application/shim/ports/task-journal.port';
import {
  TASK_RECORD_FILE as RECORD_FILE,
  taskRecordTemp,
  taskRecordTempWriter,
  TASKS_DIR,
} from '../process-runtime/task-layout';
import { recordFromJson, recordToJson } from './task-record-json';
import { processAlive } from '../../../shared/helpers/process-alive';
import { fillAndRename } from '../../../shared/helpers/replace-file';

export { RECORD_FILE };
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** A record is a few KiB (its task's stdio paths, its execs): anything near this is no record. */
const MAX_RECORD_BYTES = 1024 * 1024;

/**
 * One JSON file per task, `<tasksDir>/<id>/task.json` (docs/keeper-protocol.md, "The task
 * directory"), written atomically: a new temp file in the same directory, created 0600 (O_EXCL:
 * never an old file or a link), then renamed over the record (a rename replaces a link, it
 * never writes through one). A crash mid-write leaves the old record whole.
 *
 * The temp file's name is the writer's own, `.task.json.<pid>.<16 hex>.tmp`: one writer never
 * removes, writes into or renames another's. A hand-over has one writer per task (the old
 * process writes its last records before it starts the next, docs/upgrade.md step 5), but two
 * serving processes of one namespace at once (a keeper that found the socket refusing while
 * the old process still lived) each leave a whole record, the last rename winning. Temp files
 * a crash left are removed by `readAll` (the takeover) and by `forget`.
 *
 * A record has to outlive the serving process, not the machine (a machine's restart ends its
 * containers, and containerd's state is a tmpfs): it is not synced to the disk, and it is
 * written with system calls on the event loop. Create and Start wait for their record, and
 * the four calls take ~12 µs on a tmpfs (~0.1 ms on ext4) where the same write through
 * libuv's threads took five trips there and back, 0.1-0.3 ms (docs/performance.md, "Task
 * records"). The takeover reads them so too (before the server listens: nothing waits on the
 * loop), so the serving process never starts libuv's four threads.
 */
export class FsTaskJournal implements TaskJournal {
  constructor(private readonly tasksDir: string) {}

  /** The journal of a serving process's state dir: `<state dir>/tasks`. */
  static inStateDir(stateDir: string): FsTaskJournal {
    return new FsTaskJournal(join(stateDir, TASKS_DIR));
  }

  async record(task: TaskRecord): Promise<void> {
    const dir = join(this.tasksDir, task.id);
    const temp = join(dir, taskRecordTemp(process.pid, randomHex()));
    fillAndRename(openTemp(dir, temp), temp, join(dir, RECORD_FILE), Buffer.from(recordToJson(task)));
  }

  async forget(id: string): Promise<void> {
    const dir = join(this.tasksDir, id);
    unlessGone(() => unlinkSync(join(dir, RECORD_FILE)));
    removeTemps(dir);
    // The runtime's own files, if any are left, keep the directory: it removes them and it.
    try {
      rmdirSync(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') ignoreGone(err as NodeJS.ErrnoException);
    }
  }

  async readAll(): Promise<JournalContents> {
    const contents: JournalContents = { records: [], problems: [] };
    let names: string[];
    try {
      names = readdirSync(this.tasksDir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return contents;
      throw err;
    }
    for (const name of names.sort()) {
      // The takeover: what a crashed writer left mid-write is never read, and is removed.
      removeTemps(join(this.tasksDir, name));
      const path = join(this.tasksDir, name, RECORD_FILE);
      try {
        const record = recordFromJson(readRecord(path));
        if (record.id !== name) throw new Error(`it names task ${JSON.stringify(record.id)}, not its directory's`);
        contents.records.push(record);
      } catch (err) {
        contents.problems.push(`skipped ${path}: ${describe(err)}`);
      }
    }
    return contents;
  }
}

function readRecord(path: string): string {
  const fd = openSync(path, READ_FLAGS);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error('not a regular file');
    if (stat.size > MAX_RECORD_BYTES) throw new Error(`larger than ${MAX_RECORD_BYTES} bytes`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * 16 hex digits from the kernel's random source. Not node:crypto, which would cost the
 * serving process about 1 MB of RSS for this alone (docs/performance.md, "The serving
 * process's memory").
 */
function randomHex(): string {
  const bytes = Buffer.alloc(8);
  const fd = openSync('/dev/urandom', constants.O_RDONLY);
  try {
    for (let at = 0; at < bytes.length;) at += readSync(fd, bytes, at, bytes.length - at, null);
  } finally {
    closeSync(fd);
  }
  return bytes.toString('hex');
}

/** The temp file, new and 0600 (its name is this write's own: EEXIST is a link or a file planted there). */
function openTemp(dir: string, temp: string): number {
  try {
    return openSync(temp, WRITE_FLAGS, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return openSync(temp, WRITE_FLAGS, 0o600);
  }
}

/**
 * Removes the temp files a crash left in a task directory: this process's (it writes one
 * record at a time, synchronously, so none of its own is in a write now), those of a process
 * that is gone, and the one name of earlier versions. Another live writer's is left to it.
 */
function removeTemps(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw err;
  }
  for (const name of names) {
    const writer = taskRecordTempWriter(name);
    if (writer === undefined || (writer !== 0 && writer !== process.pid && processAlive(writer))) continue;
    unlessGone(() => unlinkSync(join(dir, name)));
  }
}

function unlessGone(remove: () => void): void {
  try {
    remove();
  } catch (err) {
    ignoreGone(err as NodeJS.ErrnoException);
  }
}

function ignoreGone(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}

function describe(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT')
    return 'no record in the task directory (a Create cut short: removed when containerd deletes the task)';
  if (code === 'ELOOP') return 'a symbolic link, not a record';
  return err instanceof Error ? err.message : String(err);
}

import { closeSync, constants, mkdirSync, openSync, renameSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { JournalContents, TaskJournal, TaskRecord } from '../../../../application/shim/ports/task-journal.port';
import {
  TASK_RECORD_FILE as RECORD_FILE,
  TASK_RECORD_TEMP as TEMP_FILE,
  TASKS_DIR,
} from '../process-runtime/task-layout';
import { recordFromJson, recordToJson } from './task-record-json';

export { RECORD_FILE };
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * One JSON file per task, `<tasksDir>/<id>/task.json` (docs/keeper-protocol.md, "The task
 * directory"), written atomically: a new temp file in the same directory, created 0600 (O_EXCL:
 * never an old file or a link), then renamed over the record (a rename replaces a link, it
 * never writes through one). A crash mid-write leaves the old record whole.
 *
 * A record has to outlive the serving process, not the machine (a machine's restart ends its
 * containers, and containerd's state is a tmpfs): it is not synced to the disk, and it is
 * written with system calls on the event loop. Create and Start wait for their record, and
 * the four calls take ~12 µs on a tmpfs (~0.1 ms on ext4) where the same write through
 * libuv's threads took five trips there and back, 0.1-0.3 ms (docs/performance.md, "Task
 * records").
 */
export class FsTaskJournal implements TaskJournal {
  constructor(private readonly tasksDir: string) {}

  /** The journal of a serving process's state dir: `<state dir>/tasks`. */
  static inStateDir(stateDir: string): FsTaskJournal {
    return new FsTaskJournal(join(stateDir, TASKS_DIR));
  }

  async record(task: TaskRecord): Promise<void> {
    const dir = join(this.tasksDir, task.id);
    const temp = join(dir, TEMP_FILE);
    const fd = openTemp(dir, temp);
    try {
      const text = Buffer.from(recordToJson(task));
      for (let at = 0; at < text.length;) at += writeSync(fd, text, at);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, join(dir, RECORD_FILE));
  }

  async forget(id: string): Promise<void> {
    const dir = join(this.tasksDir, id);
    for (const path of [join(dir, RECORD_FILE), join(dir, TEMP_FILE)]) unlessGone(() => unlinkSync(path));
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
      names = await readdir(this.tasksDir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return contents;
      throw err;
    }
    for (const name of names.sort()) {
      const path = join(this.tasksDir, name, RECORD_FILE);
      try {
        const record = recordFromJson(await readRecord(path));
        if (record.id !== name) throw new Error(`it names task ${JSON.stringify(record.id)}, not its directory's`);
        contents.records.push(record);
      } catch (err) {
        contents.problems.push(`skipped ${path}: ${describe(err)}`);
      }
    }
    return contents;
  }
}

async function readRecord(path: string): Promise<string> {
  const file = await open(path, READ_FLAGS);
  try {
    if (!(await file.stat()).isFile()) throw new Error('not a regular file');
    return await file.readFile('utf8');
  } finally {
    await file.close();
  }
}

/** The temp file, new and 0600; a temp file a crash left (whatever its mode, or a link) is removed, not written into. */
function openTemp(dir: string, temp: string): number {
  try {
    return openSync(temp, WRITE_FLAGS, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') unlinkSync(temp);
    else if (code === 'ENOENT') mkdirSync(dir, { recursive: true, mode: 0o700 });
    else throw err;
    return openSync(temp, WRITE_FLAGS, 0o600);
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
  if (code === 'ENOENT') return 'no record in the task directory (a task made before records, or cut short at Create)';
  if (code === 'ELOOP') return 'a symbolic link, not a record';
  return err instanceof Error ? err.message : String(err);
}

import { constants } from 'node:fs';
import { mkdir, open, readdir, rename, rmdir, unlink } from 'node:fs/promises';
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
 * never an old file or a link), synced, then renamed over the record (a rename replaces a
 * link, it never writes through one). A crash mid-write leaves the old record whole. The
 * writes go through libuv's threads, off the event loop that serves the RPCs.
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
    const file = await open(temp, WRITE_FLAGS, 0o600).catch(async (err: NodeJS.ErrnoException) => {
      // A temp file a crash left (whatever its mode, or a link) is removed, not written into.
      if (err.code === 'EEXIST') await unlink(temp);
      else if (err.code === 'ENOENT') await mkdir(dir, { recursive: true, mode: 0o700 });
      else throw err;
      return open(temp, WRITE_FLAGS, 0o600);
    });
    try {
      await file.writeFile(recordToJson(task));
      await file.datasync();
    } finally {
      await file.close();
    }
    await rename(temp, join(dir, RECORD_FILE));
  }

  async forget(id: string): Promise<void> {
    const dir = join(this.tasksDir, id);
    await Promise.all([join(dir, RECORD_FILE), join(dir, TEMP_FILE)].map((path) => unlink(path).catch(ignoreGone)));
    // The runtime's own files, if any are left, keep the directory: it removes them and it.
    await rmdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') ignoreGone(err);
    });
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

function ignoreGone(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}

function describe(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no record in the task directory (a task made before records, or cut short at Create)';
  if (code === 'ELOOP') return 'a symbolic link, not a record';
  return err instanceof Error ? err.message : String(err);
}

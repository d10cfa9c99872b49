import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { SandboxJournal, SandboxRecord } from '../../../../application/shim/ports/sandbox-journal.port';
import { sandboxRecordFromJson, sandboxRecordToJson } from './sandbox-record-json';

/** Beside the sandbox process's sandbox.pid, in containerd's sandbox bundle. */
export const SANDBOX_RECORD_FILE = 'sandbox.json';
/** containerd's sandbox controller of `sandboxer = "shim"`: its bundles, under its state dir. */
export const SANDBOXES_DIR = 'io.containerd.sandbox.controller.v1.shim';
const MAX_RECORD_BYTES = 64 * 1024;

/**
 * Each sandbox's record in its own bundle (`<bundle>/sandbox.json`), as the runc shim keeps a
 * task's init.pid in the task's: containerd removes the bundle after the sandbox's `delete`, so
 * no record outlives its sandbox. Written as task records are (fs-task-journal.ts): a temp
 * file of this process's own name, created 0600 and never through a link, renamed over the record.
 */
export class BundleSandboxJournal implements SandboxJournal {
  /** `sandboxes`: `<containerd state>/io.containerd.sandbox.controller.v1.shim/<namespace>`. */
  constructor(private readonly sandboxes: string) {}

  /** The journal of a serving process's state dir (`<containerd state>/skiff/<namespace>`). */
  static ofStateDir(stateDir: string, namespace: string): BundleSandboxJournal {
    return new BundleSandboxJournal(join(stateDir, '..', '..', SANDBOXES_DIR, namespace));
  }

  save(record: SandboxRecord): void {
    const temp = join(record.bundle, `.${SANDBOX_RECORD_FILE}.${process.pid}.tmp`);
    // The name is this process's, and it writes one record at a time: what is there is a dead writer's.
    unlessGone(() => unlinkSync(temp));
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      const text = Buffer.from(sandboxRecordToJson(record));
      for (let at = 0; at < text.length;) at += writeSync(fd, text, at);
    } catch (err) {
      closeSync(fd);
      unlessGone(() => unlinkSync(temp));
      throw err;
    }
    closeSync(fd);
    renameSync(temp, join(record.bundle, SANDBOX_RECORD_FILE));
  }

  remove(record: SandboxRecord): void {
    unlessGone(() => unlinkSync(join(record.bundle, SANDBOX_RECORD_FILE)));
  }

  readAll(): { records: SandboxRecord[]; problems: string[] } {
    const records: SandboxRecord[] = [];
    const problems: string[] = [];
    let names: string[];
    try {
      names = readdirSync(this.sandboxes);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records, problems };
      throw err;
    }
    for (const name of names.sort()) {
      const path = join(this.sandboxes, name, SANDBOX_RECORD_FILE);
      let text: string;
      try {
        text = readRecord(path);
      } catch (err) {
        // A bundle with no record: created, never started (nothing to take over), or not skiff's.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
          problems.push(`skipped ${path}: ${(err as Error).message}`);
        continue;
      }
      try {
        const record = sandboxRecordFromJson(text);
        if (record.spec.id !== name)
          throw new Error(`it names sandbox ${JSON.stringify(record.spec.id)}, not its bundle's`);
        records.push({ ...record, bundle: join(this.sandboxes, name) });
      } catch (err) {
        problems.push(`skipped ${path}: ${(err as Error).message}`);
      }
    }
    return { records, problems };
  }
}

function readRecord(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error('not a regular file');
    if (stat.size > MAX_RECORD_BYTES) throw new Error(`larger than ${MAX_RECORD_BYTES} bytes`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function unlessGone(remove: () => void): void {
  try {
    remove();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

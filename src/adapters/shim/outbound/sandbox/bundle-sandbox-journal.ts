import { constants, openSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxJournal, SandboxRecord } from '../../../../application/shim/ports/sandbox-journal.port';
import { readRegularFile, unreadableReason } from '../../../shared/helpers/no-follow-file';
import { fillAndRename } from '../../../shared/helpers/replace-file';
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
    fillAndRename(fd, temp, join(record.bundle, SANDBOX_RECORD_FILE), Buffer.from(sandboxRecordToJson(record)));
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
      let text: string | undefined;
      try {
        text = readRegularFile(path, { limit: MAX_RECORD_BYTES });
      } catch (err) {
        problems.push(`skipped ${path}: it ${unreadableReason(err)}`);
        continue;
      }
      // A bundle with no record: created, never started (nothing to take over), or not skiff's.
      if (text === undefined) continue;
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

function unlessGone(remove: () => void): void {
  try {
    remove();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsTaskJournal, RECORD_FILE } from '../../../../../src/adapters/shim/outbound/task-journal/fs-task-journal';
import { aTaskRecord, taskJournalContract } from '../../../../contract/task-journal.contract';
import { InMemoryTaskJournal } from '../../../../../src/adapters/fakes/shim/in-memory-task-journal';

taskJournalContract('InMemoryTaskJournal', () => {
  const journal = new InMemoryTaskJournal();
  return {
    journal,
    corrupt(id) {
      void journal.forget(id);
      journal.unreadable.push(`skipped the record of ${id}: damaged`);
    },
    cleanup: () => undefined,
  };
});

function tasksDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'skiff-journal-')), 'tasks');
}

taskJournalContract('FsTaskJournal', () => {
  const dir = tasksDir();
  return {
    journal: new FsTaskJournal(dir),
    corrupt: (id) => writeFileSync(join(dir, id, RECORD_FILE), '{"version":1,"id":"'),
    cleanup: () => rmSync(join(dir, '..'), { recursive: true, force: true }),
  };
});

describe('FsTaskJournal on disk', () => {
  let dir: string;
  let journal: FsTaskJournal;
  beforeEach(() => {
    dir = tasksDir();
    journal = new FsTaskJournal(dir);
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('writes <tasks>/<id>/task.json 0600 in a 0700 directory, and nothing else', async () => {
    await journal.record(aTaskRecord('web'));
    expect(statSync(join(dir, 'web')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'web', RECORD_FILE)).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(dir, 'web'))).toEqual([RECORD_FILE]);
    expect(JSON.parse(readFileSync(join(dir, 'web', RECORD_FILE), 'utf8'))).toMatchObject({ version: 1, id: 'web' });
  });

  it('leaves no directory behind when it forgets a task (no leak on disk)', async () => {
    await journal.record(aTaskRecord('web'));
    await journal.forget('web');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never writes through a symbolic link planted at the record', async () => {
    const outside = join(dir, '..', 'outside');
    writeFileSync(outside, 'untouched');
    mkdirSync(join(dir, 'web'), { recursive: true });
    symlinkSync(outside, join(dir, 'web', RECORD_FILE));
    symlinkSync(outside, join(dir, 'web', '.task.json.tmp'));
    await journal.record(aTaskRecord('web'));
    expect(readFileSync(outside, 'utf8')).toBe('untouched');
    expect(lstatSync(join(dir, 'web', RECORD_FILE)).isFile()).toBe(true);
  });

  it('does not read a record through a symbolic link', async () => {
    await journal.record(aTaskRecord('real'));
    mkdirSync(join(dir, 'linked'));
    symlinkSync(join(dir, 'real', RECORD_FILE), join(dir, 'linked', RECORD_FILE));
    const { records, problems } = await journal.readAll();
    expect(records.map((r) => r.id)).toEqual(['real']);
    expect(problems).toEqual([`skipped ${join(dir, 'linked', RECORD_FILE)}: a symbolic link, not a record`]);
  });

  it('reports an empty, a partial and a foreign record in one line each', async () => {
    await journal.record(aTaskRecord('good'));
    for (const [id, text] of [
      ['empty', ''],
      ['partial', '{"version":1,"id":"partial","bun'],
      ['future', '{"version":2}'],
      ['renamed', readFileSync(join(dir, 'good', RECORD_FILE), 'utf8')],
    ]) {
      mkdirSync(join(dir, id));
      writeFileSync(join(dir, id, RECORD_FILE), text);
    }
    mkdirSync(join(dir, 'bare'));
    const { records, problems } = await journal.readAll();
    expect(records.map((r) => r.id)).toEqual(['good']);
    expect(problems).toEqual([
      `skipped ${join(dir, 'bare', RECORD_FILE)}: no record in the task directory (a task made before records, or cut short at Create)`,
      `skipped ${join(dir, 'empty', RECORD_FILE)}: the file is empty`,
      `skipped ${join(dir, 'future', RECORD_FILE)}: version 2 is not 1`,
      `skipped ${join(dir, 'partial', RECORD_FILE)}: not JSON (a partial or corrupt write)`,
      `skipped ${join(dir, 'renamed', RECORD_FILE)}: it names task "good", not its directory's`,
    ]);
  });

  it('replaces a temp file a crash left mid-write, and never reads it', async () => {
    mkdirSync(join(dir, 'web'), { recursive: true });
    writeFileSync(join(dir, 'web', '.task.json.tmp'), '{"version":1,"id":"we', { mode: 0o644 });
    await expect(journal.readAll()).resolves.toMatchObject({ records: [] });
    await journal.record(aTaskRecord('web'));
    expect(readdirSync(join(dir, 'web'))).toEqual([RECORD_FILE]);
    expect(statSync(join(dir, 'web', RECORD_FILE)).mode & 0o777).toBe(0o600);
    expect((await journal.readAll()).records.map((r) => r.id)).toEqual(['web']);
  });

  it('reads nothing from a state directory that has no tasks directory yet', async () => {
    await expect(new FsTaskJournal(join(dir, 'missing')).readAll()).resolves.toEqual({ records: [], problems: [] });
  });
});

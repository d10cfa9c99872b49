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
import { spawn } from 'node:child_process';
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
      `skipped ${join(dir, 'bare', RECORD_FILE)}: no record in the task directory (a Create cut short: removed when containerd deletes the task)`,
      `skipped ${join(dir, 'empty', RECORD_FILE)}: the file is empty`,
      `skipped ${join(dir, 'future', RECORD_FILE)}: version 2 is not 1`,
      `skipped ${join(dir, 'partial', RECORD_FILE)}: not JSON (a partial or corrupt write)`,
      `skipped ${join(dir, 'renamed', RECORD_FILE)}: it names task "good", not its directory's`,
    ]);
  });

  it('never reads a temp file a crash left mid-write; the takeover (readAll) and forget remove it', async () => {
    mkdirSync(join(dir, 'web'), { recursive: true });
    const left = ['.task.json.tmp', '.task.json.999999999.0123456789abcdef.tmp'];
    for (const name of left) writeFileSync(join(dir, 'web', name), '{"version":1,"id":"we', { mode: 0o644 });
    await expect(journal.readAll()).resolves.toMatchObject({ records: [] });
    expect(readdirSync(join(dir, 'web'))).toEqual([]);
    for (const name of left) writeFileSync(join(dir, 'web', name), '{"version":1,"id":"we', { mode: 0o644 });
    await journal.record(aTaskRecord('web'));
    expect(readdirSync(join(dir, 'web')).sort()).toEqual([...left, RECORD_FILE].sort());
    await journal.forget('web');
    expect(readdirSync(dir)).toEqual([]);
    await journal.record(aTaskRecord('web'));
    expect(readdirSync(join(dir, 'web'))).toEqual([RECORD_FILE]);
    expect(statSync(join(dir, 'web', RECORD_FILE)).mode & 0o777).toBe(0o600);
    expect((await journal.readAll()).records.map((r) => r.id)).toEqual(['web']);
  });

  it('a temp file of its own per write: <pid>.<random>, so no writer removes or renames another', async () => {
    const fs = jest.requireActual<typeof import('node:fs')>('node:fs');
    const spy = jest.spyOn(fs, 'renameSync');
    let seen: string[];
    try {
      await journal.record(aTaskRecord('web'));
      await journal.record(aTaskRecord('web'));
      seen = spy.mock.calls.map(([from]) => String(from));
    } finally {
      spy.mockRestore();
    }
    expect(seen).toHaveLength(2);
    for (const from of seen)
      expect(from).toMatch(new RegExp(`/web/\\.task\\.json\\.${process.pid}\\.[0-9a-f]{16}\\.tmp$`));
    expect(seen[0]).not.toBe(seen[1]);
  });

  it('two processes writing one task at once (a hand-over gone wrong): no error, every read a whole record', async () => {
    const module = join(__dirname, '../../../../../dist/adapters/shim/outbound/task-journal/fs-task-journal.js');
    const record = JSON.stringify({ ...aTaskRecord('web'), options: undefined });
    const writer = (tag: string) =>
      `const { FsTaskJournal } = require(${JSON.stringify(module)});
       const j = new FsTaskJournal(${JSON.stringify(dir)});
       (async () => {
         for (let i = 0; i < 3000; i++) {
           const r = JSON.parse(${JSON.stringify(record)}, (k, v) => (/^\\d{4}-\\d\\d-\\d\\dT/.test(v) ? new Date(v) : v));
           await j.record({ ...r, bundle: '/run/${tag}/' + i });
         }
       })().catch((e) => { console.error(e.code || e.message); process.exit(1); });`;
    await journal.record(aTaskRecord('web'));
    const children = ['a', 'b'].map((tag) =>
      spawn(process.execPath, ['-e', writer(tag)], { stdio: ['ignore', 'ignore', 'pipe'] }),
    );
    const results = Promise.all(
      children.map(
        (child) =>
          new Promise<{ code: number | null; stderr: string }>((resolve) => {
            let stderr = '';
            child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
            child.on('close', (code) => resolve({ code, stderr }));
          }),
      ),
    );
    let running = true;
    void results.then(() => (running = false));
    let reads = 0;
    try {
      while (running) {
        const { records, problems } = await new FsTaskJournal(dir).readAll();
        expect(problems).toEqual([]);
        expect(records.map((r) => r.id)).toEqual(['web']);
        reads++;
        // readAll reads with system calls on the loop: let the children's exits in.
        await new Promise(setImmediate);
      }
    } finally {
      for (const child of children) child.kill('SIGKILL');
    }
    expect(await results).toEqual([
      { code: 0, stderr: '' },
      { code: 0, stderr: '' },
    ]);
    expect(reads).toBeGreaterThan(0);
    expect(readdirSync(join(dir, 'web'))).toEqual([RECORD_FILE]);
  }, 60_000);

  it('reads nothing from a state directory that has no tasks directory yet', async () => {
    await expect(new FsTaskJournal(join(dir, 'missing')).readAll()).resolves.toEqual({ records: [], problems: [] });
  });
});

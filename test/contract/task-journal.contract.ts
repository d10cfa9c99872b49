import { TaskJournal, TaskRecord } from '../../src/application/shim/ports/task-journal.port';

export interface TaskJournalSubject {
  readonly journal: TaskJournal;
  /** Damages the record of `id` as a crash mid-write or a stray edit would. */
  corrupt(id: string): void;
  cleanup(): void;
}

/** A record with every field set, the way the task service writes one for a runc task with an exec. */
export function aTaskRecord(id: string, overrides: Partial<TaskRecord> = {}): TaskRecord {
  const stdio = { stdin: '', stdout: `/run/io/${id}.out`, stderr: `/run/io/${id}.err`, terminal: false };
  return {
    id,
    bundle: `/run/bundles/${id}`,
    runtime: 'runc',
    rootfs: [{ type: 'overlay', source: 'overlay', target: '', options: ['lowerdir=/l', 'upperdir=/u', 'workdir=/w'] }],
    checkpoint: '',
    options: { typeUrl: 'containerd.runc.v1.Options', value: Uint8Array.from([8, 1, 0xff]) },
    createdAt: new Date('2026-01-02T03:04:05.678Z'),
    init: { execId: '', stdio, pid: 4100, startTime: 123456, status: 'running' },
    execs: [
      {
        execId: 'sh',
        stdio: { ...stdio, terminal: true },
        pid: 4200,
        startTime: 123999,
        status: 'stopped',
        exit: { status: 137, exitedAt: new Date('2026-01-02T03:05:00.000Z') },
        spec: { args: ['sh'], cwd: '/', env: ['PATH=/bin'] },
      },
    ],
    ...overrides,
  };
}

/** What every TaskJournal does, run against the fake and the file adapter alike. */
export function taskJournalContract(name: string, make: () => TaskJournalSubject): void {
  describe(`${name} honours the TaskJournal contract`, () => {
    let subject: TaskJournalSubject;
    beforeEach(() => (subject = make()));
    afterEach(() => subject.cleanup());

    it('reads nothing when nothing was recorded', async () => {
      await expect(subject.journal.readAll()).resolves.toEqual({ records: [], problems: [] });
    });

    it('reads back every field recorded, dates and option bytes included', async () => {
      const record = aTaskRecord('web');
      await subject.journal.record(record);
      const { records, problems } = await subject.journal.readAll();
      expect(problems).toEqual([]);
      expect(records).toEqual([record]);
      expect(records[0].createdAt.getTime()).toBe(record.createdAt.getTime());
      expect([...(records[0].options?.value ?? [])]).toEqual([8, 1, 0xff]);
    });

    it('keeps the newest record of a task, and one per task in id order', async () => {
      await subject.journal.record(aTaskRecord('b'));
      await subject.journal.record(aTaskRecord('a'));
      const stopped = aTaskRecord('b', {
        init: { ...aTaskRecord('b').init, status: 'stopped', exit: { status: 255, exitedAt: new Date(0) } },
        execs: [],
      });
      await subject.journal.record(stopped);
      const { records } = await subject.journal.readAll();
      expect(records.map((r) => r.id)).toEqual(['a', 'b']);
      expect(records[1]).toEqual(stopped);
    });

    it('forgets a task, and an unknown id is fine', async () => {
      await subject.journal.record(aTaskRecord('web'));
      await subject.journal.forget('web');
      await subject.journal.forget('never-recorded');
      await expect(subject.journal.readAll()).resolves.toEqual({ records: [], problems: [] });
    });

    it('reports a damaged record in one line naming it, and still reads the others', async () => {
      await subject.journal.record(aTaskRecord('good'));
      await subject.journal.record(aTaskRecord('bad'));
      subject.corrupt('bad');
      const { records, problems } = await subject.journal.readAll();
      expect(records.map((r) => r.id)).toEqual(['good']);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain('bad');
      expect(problems[0]).not.toContain('\n');
    });

    it('holds what was recorded, not the caller object a later change would alter', async () => {
      const record = aTaskRecord('web');
      await subject.journal.record(record);
      (record.execs as unknown[]).length = 0;
      const { records } = await subject.journal.readAll();
      expect(records[0].execs).toHaveLength(1);
    });
  });
}

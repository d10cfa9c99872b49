import type { SandboxJournal, SandboxRecord } from '../../src/application/shim/ports/sandbox-journal.port';

export interface SandboxJournalSubject {
  readonly journal: SandboxJournal;
  /** containerd's bundle of sandbox `id` (made by containerd before CreateSandbox). */
  bundleOf(id: string): string;
  /** Damages the record of `id` as a crash mid-write or a stray edit would. */
  corrupt(id: string): void;
  cleanup(): void;
}

/** A started sandbox's record, every field set. */
export function aSandboxRecord(id: string, bundle: string, overrides: Partial<SandboxRecord> = {}): SandboxRecord {
  return {
    spec: {
      id,
      netns: `/var/run/netns/cni-${id}`,
      hostname: 'web-0',
      ownPid: true,
      ownIpc: false,
      sysctls: [['net.ipv4.ip_unprivileged_port_start', '0']],
    },
    bundle,
    createdAt: new Date('2026-12-04T10:11:12.345Z'),
    pid: 4321,
    ...overrides,
  };
}

/** What every SandboxJournal does, run against the fake and the bundle adapter alike. */
export function sandboxJournalContract(name: string, make: () => SandboxJournalSubject): void {
  describe(`${name} honours the SandboxJournal contract`, () => {
    let subject: SandboxJournalSubject;
    beforeEach(() => {
      subject = make();
    });
    afterEach(() => subject.cleanup());

    it('reads back what was saved, the last save of a sandbox winning, by id', () => {
      const a = aSandboxRecord('a', subject.bundleOf('a'));
      const b = aSandboxRecord('b', subject.bundleOf('b'), {
        spec: { id: 'b', ownPid: false, ownIpc: true, sysctls: [] },
      });
      subject.journal.save(a);
      subject.journal.save(b);
      const ended = { ...a, exit: { exitStatus: 137, exitedAt: new Date('2026-12-04T10:12:00.000Z') } };
      subject.journal.save(ended);
      const { records, problems } = subject.journal.readAll();
      expect(problems).toEqual([]);
      expect(records.sort((x, y) => x.spec.id.localeCompare(y.spec.id))).toEqual([ended, b]);
    });

    it('forgets a removed record; removing one that is gone is no fault', () => {
      const a = aSandboxRecord('a', subject.bundleOf('a'));
      subject.journal.save(a);
      subject.journal.remove(a);
      subject.journal.remove(a);
      expect(subject.journal.readAll()).toEqual({ records: [], problems: [] });
    });

    it('skips a damaged record, saying so, and reads the others', () => {
      subject.journal.save(aSandboxRecord('a', subject.bundleOf('a')));
      subject.journal.save(aSandboxRecord('b', subject.bundleOf('b')));
      subject.corrupt('a');
      const { records, problems } = subject.journal.readAll();
      expect(records.map((r) => r.spec.id)).toEqual(['b']);
      expect(problems).toHaveLength(1);
    });
  });
}

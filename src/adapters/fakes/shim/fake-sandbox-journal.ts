import type { SandboxJournal, SandboxRecord } from '../../../application/shim/ports/sandbox-journal.port';

/** Sandbox records in memory, by id, as a bundle's file would hold them: the application's tests read what was saved. */
export class FakeSandboxJournal implements SandboxJournal {
  readonly records = new Map<string, SandboxRecord>();
  /** What readAll says it could not read. */
  problems: string[] = [];

  save(record: SandboxRecord): void {
    this.records.set(record.spec.id, structuredClone(record));
  }

  remove(record: SandboxRecord): void {
    this.records.delete(record.spec.id);
  }

  readAll(): { records: SandboxRecord[]; problems: string[] } {
    return { records: [...this.records.values()].map((r) => structuredClone(r)), problems: [...this.problems] };
  }
}

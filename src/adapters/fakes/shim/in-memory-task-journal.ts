import { JournalContents, TaskJournal, TaskRecord } from '../../../application/shim/ports/task-journal.port';

/** The task journal in memory: records kept as copies, so a later change to one never leaks in. */
export class InMemoryTaskJournal implements TaskJournal {
  private readonly records = new Map<string, TaskRecord>();
  /** Lines readAll reports, as the real journal does for records it cannot read. */
  readonly unreadable: string[] = [];
  writes = 0;
  /** While set, every write waits for it (hold()). */
  private gate: Promise<void> | undefined;

  async record(task: TaskRecord): Promise<void> {
    const copy = structuredClone(task);
    await this.gate;
    this.writes++;
    this.records.set(task.id, copy);
  }

  /** Holds every write until the returned release is called (test hook: a slow disk). */
  hold(): () => void {
    let release!: () => void;
    this.gate = new Promise((resolve) => (release = resolve));
    return () => {
      this.gate = undefined;
      release();
    };
  }

  async forget(id: string): Promise<void> {
    this.records.delete(id);
  }

  async readAll(): Promise<JournalContents> {
    const records = [...this.records.keys()].sort().map((id) => structuredClone(this.records.get(id) as TaskRecord));
    return { records, problems: [...this.unreadable] };
  }

  /** The record of `id` as it stands, for assertions. */
  get(id: string): TaskRecord | undefined {
    return this.records.get(id);
  }

  get size(): number {
    return this.records.size;
  }
}

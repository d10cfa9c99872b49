import { JournalContents, TaskJournal } from '../../../../application/shim/ports/task-journal.port';

/**
 * The native runtime's journal: none. Its processes hold their stdio and terminal
 * through this serving process and die with it (docs/failure-domains.md, "Known
 * limits"), so a record could not be taken over, and writing one would only cost time.
 */
export class NoTaskJournal implements TaskJournal {
  async record(): Promise<void> {}

  async forget(): Promise<void> {}

  async readAll(): Promise<JournalContents> {
    return { records: [], problems: [] };
  }
}

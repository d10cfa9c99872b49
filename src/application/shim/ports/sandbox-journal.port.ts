import type { ServiceIdentifier } from 'inversify';
import type { SandboxSpec } from '../../../domain/shim/sandbox';

export const SANDBOX_JOURNAL: ServiceIdentifier<SandboxJournal> = Symbol('SandboxJournal');

/** What a serving process that takes a sandbox over needs of it (docs/sandbox-api.md, "Crashes and hand-overs"). */
export interface SandboxRecord {
  readonly spec: SandboxSpec;
  readonly bundle: string;
  readonly createdAt: Date;
  /** The sandbox process's host pid, once started. */
  readonly pid: number;
  /** Its end, once seen (WaitSandbox's answer). */
  readonly exit?: { readonly exitStatus: number; readonly exitedAt: Date };
}

/**
 * The started sandboxes, kept where the next serving process of the namespace finds them: a
 * crash or a hand-over of the serving process loses no pod.
 */
export interface SandboxJournal {
  save(record: SandboxRecord): void;
  remove(record: SandboxRecord): void;
  /** Every record of the namespace; what cannot be read is skipped and said in `problems`. */
  readAll(): { records: SandboxRecord[]; problems: string[] };
}

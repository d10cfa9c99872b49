import { Task } from '../../../domain/shim/task';
import { RuntimeTask } from '../ports/process-runtime.port';
import { ProcessEntry } from './process-entry';

/** A task as the service holds it: the domain aggregate, its runtime and its entries. */
export class TaskRecord {
  readonly init: ProcessEntry;
  private readonly execEntries = new Map<string, ProcessEntry>();
  private runtimeTask: RuntimeTask | undefined;

  constructor(readonly task: Task) {
    this.init = new ProcessEntry(task.init);
  }

  get runtime(): RuntimeTask {
    return this.init.handle as RuntimeTask;
  }

  attach(runtimeTask: RuntimeTask): void {
    this.runtimeTask = runtimeTask;
    this.init.attach(runtimeTask);
  }

  get isAttached(): boolean {
    return this.runtimeTask !== undefined;
  }

  /** The entry an exec id names ('' = init); NotFound from the domain otherwise. */
  entry(execId: string): ProcessEntry {
    const process = this.task.process(execId);
    return process.isInit ? this.init : (this.execEntries.get(execId) as ProcessEntry);
  }

  addExec(entry: ProcessEntry): void {
    this.execEntries.set(entry.process.execId, entry);
  }

  removeExec(execId: string): void {
    this.execEntries.get(execId)?.markDeleted();
    this.execEntries.delete(execId);
    this.task.removeExec(execId);
  }

  execs(): ProcessEntry[] {
    return [...this.execEntries.values()];
  }

  entries(): ProcessEntry[] {
    return [this.init, ...this.execEntries.values()];
  }
}

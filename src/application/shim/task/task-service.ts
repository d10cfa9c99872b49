import { inject, injectable } from 'inversify';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError, UnimplementedError } from '../../../domain/shared/errors';
import { exitStatusOf, ProcessExit } from '../../../domain/shim/exit-status';
import { parseOciProcess } from '../../../domain/shim/oci-spec';
import { Task } from '../../../domain/shim/task';
import { assertValidId } from '../../../domain/shim/task-id';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import { PROCESS_RUNTIME, type ProcessRuntime } from '../ports/process-runtime.port';
import { SHIM_HOST, type ShimHost } from '../ports/shim-host.port';
import { decodeJsonAny, OCI_PROCESS_TYPE_URL, OCI_RESOURCES_TYPE_URL } from './any-payload';
import { ProcessEntry } from './process-entry';
import { SIGKILL, SIGTERM, stopAll } from './stop-all';
import { TaskRecord } from './task-record';
import {
  ConnectView,
  CreateTaskInput,
  DeleteView,
  ExecInput,
  ExitView,
  KillInput,
  PidView,
  ProcessRef,
  ResizeInput,
  StateView,
  StatsView,
  UpdateInput,
} from './task-messages';

const MAX_SIGNAL = 64;

/**
 * The task.v2.Task service, one method per RPC, free of gRPC types. Holds every
 * task of this shim, keeps each exit status from the moment the process exits
 * until Delete, and wakes every Wait.
 */
@injectable()
export class TaskService {
  private readonly tasks = new Map<string, TaskRecord>();

  constructor(
    @inject(PROCESS_RUNTIME) private readonly runtime: ProcessRuntime,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(SHIM_HOST) private readonly host: ShimHost,
  ) {}

  async create(input: CreateTaskInput): Promise<{ pid: number }> {
    assertValidId(input.id, 'task id');
    if (this.tasks.has(input.id)) {
      throw new AlreadyExistsError(`task ${JSON.stringify(input.id)} already exists`, 'TASK.EXISTS');
    }
    if (input.parentCheckpoint !== '') {
      throw new UnimplementedError(`task ${JSON.stringify(input.id)}: parent_checkpoint (incremental restore) is not supported`, 'TASK.PARENT_CHECKPOINT');
    }
    // Reserve the id before the first await so a concurrent Create of it is refused.
    const record = new TaskRecord(new Task(input.id, input.bundle, input));
    this.tasks.set(input.id, record);
    try {
      const spec = { id: input.id, bundle: input.bundle, stdio: input, rootfs: input.rootfs, checkpoint: input.checkpoint };
      record.attach(await this.runtime.create(spec, (exit) => this.onExit(record.init, exit)));
      return { pid: record.init.process.pid };
    } catch (err) {
      this.tasks.delete(input.id);
      throw err;
    }
  }

  async start(ref: ProcessRef): Promise<{ pid: number }> {
    const entry = this.entry(ref);
    return entry.queue.run(async () => {
      const transition = entry.process.check('start');
      const pid = await entry.handle.start();
      entry.process.assignPid(pid);
      entry.process.commit(transition);
      return { pid };
    });
  }

  async delete(ref: ProcessRef): Promise<DeleteView> {
    const record = this.record(ref.id);
    const entry = record.entry(ref.execId);
    return entry.queue.run(async () => {
      entry.process.check('delete');
      if (entry.process.isInit) {
        // No pid namespace holds a native task's execs together: end them with the task.
        await stopAll(record.execs(), SIGKILL);
        await Promise.allSettled(record.execs().map((e) => e.handle.delete()));
      }
      await entry.handle.delete();
      const view = { pid: entry.process.pid, ...exitView(entry) };
      if (entry.process.isInit) {
        for (const exec of record.execs()) record.removeExec(exec.process.execId);
        entry.markDeleted();
        this.tasks.delete(ref.id);
      } else {
        record.removeExec(ref.execId);
      }
      return view;
    });
  }

  async exec(input: ExecInput): Promise<void> {
    const record = this.record(input.id);
    return record.init.queue.run(async () => {
      const process = record.task.addExec(input.execId, input);
      const entry = new ProcessEntry(process);
      record.addExec(entry);
      try {
        if (input.spec === undefined) throw new InvalidArgumentError(`${process.subject}: spec is missing`, 'EXEC.NO_SPEC');
        const what = `exec spec of ${process.subject}`;
        const json = decodeJsonAny(input.spec, OCI_PROCESS_TYPE_URL, what);
        const oci = parseOciProcess(json, what);
        const spec = { execId: input.execId, stdio: input, process: oci, processJson: json as Record<string, unknown> };
        entry.attach(await record.runtime.exec(spec, (exit) => this.onExit(entry, exit)));
      } catch (err) {
        record.removeExec(input.execId);
        throw err;
      }
    });
  }

  state(ref: ProcessRef): StateView {
    const record = this.record(ref.id);
    const process = record.entry(ref.execId).process;
    // An exec of a paused task is frozen too: report the task's PAUSED, as containerd does.
    const status = record.task.init.status === 'paused' && process.status === 'running' ? 'paused' : process.status;
    const { stdin, stdout, stderr, terminal } = process.stdio;
    const exit = process.exit;
    return {
      id: ref.id, execId: ref.execId, bundle: record.task.bundle, pid: process.pid, status,
      stdin, stdout, stderr, terminal, exitStatus: exit?.status ?? 0, exitedAt: exit?.exitedAt,
    };
  }

  async wait(ref: ProcessRef): Promise<ExitView> {
    const exit = await this.entry(ref).exited;
    return { exitStatus: exit.status, exitedAt: exit.exitedAt };
  }

  async kill(input: KillInput): Promise<void> {
    const entry = this.entry(input);
    if (!Number.isInteger(input.signal) || input.signal < 0 || input.signal > MAX_SIGNAL) {
      throw new InvalidArgumentError(`cannot kill ${entry.process.subject}: signal ${input.signal} is not a signal number (0-${MAX_SIGNAL})`, 'KILL.BAD_SIGNAL');
    }
    entry.process.checkKill();
    if (input.all && entry.process.isInit) return this.record(input.id).runtime.killAll(input.signal);
    return entry.handle.kill(input.signal);
  }

  async pause(id: string): Promise<void> {
    const record = this.record(id);
    await record.init.queue.run(async () => {
      const transition = record.init.process.check('pause');
      await record.runtime.pause();
      record.init.process.commit(transition);
    });
  }

  async resume(id: string): Promise<void> {
    const record = this.record(id);
    await record.init.queue.run(async () => {
      const transition = record.init.process.check('resume');
      await record.runtime.resume();
      record.init.process.commit(transition);
    });
  }

  async pids(id: string): Promise<PidView[]> {
    const record = this.record(id);
    const execByPid = new Map(record.execs().map((e) => [e.process.pid, e.process.execId]));
    const pids = await record.runtime.pids();
    return pids.map(({ pid }) => ({ pid, execId: execByPid.get(pid) }));
  }

  async closeIO(ref: ProcessRef & { stdin: boolean }): Promise<void> {
    const entry = this.entry(ref);
    if (ref.stdin) await entry.handle.closeStdin();
  }

  async resizePty(input: ResizeInput): Promise<void> {
    const entry = this.entry(input);
    entry.process.check('resize');
    await entry.handle.resizePty(input.width, input.height);
  }

  async update(input: UpdateInput): Promise<void> {
    const record = this.record(input.id);
    record.init.process.check('update');
    if (input.resources === undefined) return;
    const what = `resources for task ${JSON.stringify(input.id)}`;
    const resources = decodeJsonAny(input.resources, OCI_RESOURCES_TYPE_URL, what);
    if (typeof resources !== 'object' || resources === null || Array.isArray(resources)) {
      throw new InvalidArgumentError(`${what} must be a JSON object (OCI LinuxResources)`, 'UPDATE.INVALID');
    }
    await record.init.queue.run(() => record.runtime.update(resources as Record<string, unknown>));
  }

  async stats(id: string): Promise<StatsView> {
    const record = this.record(id);
    return { ...(await record.runtime.stats()), runtime: this.runtime.name };
  }

  async checkpoint(input: { id: string; path: string }): Promise<void> {
    const record = this.record(input.id);
    await record.init.queue.run(async () => {
      record.init.process.check('checkpoint');
      if (!input.path.startsWith('/')) {
        throw new InvalidArgumentError(`checkpoint of task ${JSON.stringify(input.id)}: path must be an absolute directory`, 'CHECKPOINT.PATH');
      }
      await record.runtime.checkpoint(input.path);
    });
  }

  connect(id: string): ConnectView {
    const record = this.record(id);
    return { shimPid: this.host.pid, taskPid: record.init.process.pid, version: this.host.version };
  }

  /**
   * Exits when no task is left (containerd's runc shim); with `now`, kills what is
   * left first. The id is not looked up: containerd sends Shutdown after Delete.
   */
  async shutdown(now: boolean): Promise<void> {
    if (this.tasks.size > 0 && !now) return;
    await this.stopEverything(0);
    this.host.requestExit();
  }

  /**
   * Ends every process of every task: `graceMs` > 0 sends SIGTERM first and SIGKILL to
   * what is left after the grace, 0 sends SIGKILL at once. Used by Shutdown(now) and
   * when the shim itself is told to stop.
   */
  async stopEverything(graceMs: number): Promise<void> {
    const records = [...this.tasks.values()].filter((r) => r.isAttached);
    const entries = records.flatMap((r) => r.entries());
    if (graceMs > 0) {
      // A stopped (paused) process would hold SIGTERM pending: continue it first.
      await Promise.allSettled(records.filter((r) => r.init.process.status === 'paused').map((r) => r.runtime.resume()));
      await stopAll(entries, SIGTERM, this.clock, graceMs);
    }
    await stopAll(entries, SIGKILL);
    await Promise.allSettled(entries.map((e) => e.handle.delete()));
    this.tasks.clear();
  }

  get taskCount(): number {
    return this.tasks.size;
  }

  private onExit(entry: ProcessEntry, exit: ProcessExit): void {
    entry.recordExit(exitStatusOf(exit, this.clock.now()));
  }

  /** Unknown ids are NOT_FOUND before anything else is judged (CONTRACT.md). */
  private record(id: string): TaskRecord {
    const record = this.tasks.get(id);
    if (record === undefined || !record.isAttached) {
      throw new NotFoundError(`task ${JSON.stringify(id)} not found`, 'TASK.NOT_FOUND');
    }
    return record;
  }

  private entry(ref: ProcessRef): ProcessEntry {
    return this.record(ref.id).entry(ref.execId);
  }
}

function exitView(entry: ProcessEntry): ExitView {
  const exit = entry.process.exit;
  return { exitStatus: exit?.status ?? 0, exitedAt: exit?.exitedAt };
}

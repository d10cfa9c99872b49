import { inject, injectable, optional } from 'inversify';
import {
  AlreadyExistsError,
  InvalidArgumentError,
  NotFoundError,
  UnimplementedError,
} from '../../../domain/shared/errors';
import { exitStatusOf, type ProcessExit } from '../../../domain/shim/exit-status';
import { Operation } from '../../../domain/shim/lifecycle';
import { parseOciProcess } from '../../../domain/shim/oci-spec';
import { Task } from '../../../domain/shim/task';
import { assertValidId } from '../../../domain/shim/task-id';
import { TaskProcess } from '../../../domain/shim/task-process';
import { CLOCK, type Clock } from '../../shared/ports/clock.port';
import {
  PROCESS_RUNTIME,
  type ProcessHandle,
  type ProcessRuntime,
  type TaskHandle,
} from '../ports/process-runtime.port';
import { EVENTS, type Events } from '../ports/events.port';
import { SHIM_HOST, type ShimHost } from '../ports/shim-host.port';
import { TASK_JOURNAL, type TaskJournal } from '../ports/task-journal.port';
import { POD_SANDBOXES, type PodSandboxes } from '../ports/pod-sandboxes.port';
import { originOf, TaskRecords } from './task-records';
import { recoverTask } from './task-recovery';
import { ExitEvents } from './exit-events';
import { decodeJsonAny, OCI_PROCESS_TYPE_URL, OCI_RESOURCES_TYPE_URL } from './any-payload';
import { SIGKILL, SIGTERM, stopAll } from './stop-all';
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
  ShutdownInput,
  StateView,
  StatsView,
  UpdateInput,
  CheckpointInput,
} from './task-messages';

const MAX_SIGNAL = 64;

/** A task as the shim holds it: the runtime's handle on its init acts on the whole task. */
type ShimTask = Task<TaskHandle, ProcessHandle>;
type ShimProcess = TaskProcess<ProcessHandle>;

/**
 * The task.v2.Task service, one method per RPC (docs/shim-contract.md), free of any
 * transport's types. Holds every task of this shim, keeps each exit status from the
 * moment the process exits until Delete, and wakes every Wait. Every RPC that changes
 * a process goes through `transition`. Each change is published as a task event and
 * recorded in the journal, from which a new serving process takes the tasks over (`recover`).
 */
@injectable()
export class TaskService {
  private readonly tasks = new Map<string, ShimTask>();
  private readonly exitEvents: ExitEvents;
  private readonly records: TaskRecords;

  constructor(
    @inject(PROCESS_RUNTIME) private readonly runtime: ProcessRuntime,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(SHIM_HOST) private readonly host: ShimHost,
    @inject(EVENTS) private readonly events: Events,
    @inject(TASK_JOURNAL) private readonly journal: TaskJournal,
    /** Bound where the Sandbox API is served (behind pod keepers). */
    @inject(POD_SANDBOXES) @optional() private readonly sandboxes?: PodSandboxes,
  ) {
    this.exitEvents = new ExitEvents(events);
    this.records = new TaskRecords(journal, (line) => host.warn(line));
  }

  /**
   * Takes over the tasks a previous serving process recorded: each runs on (or is
   * reported stopped, once) as if this process had made it. A record that cannot be
   * read or taken over is one line in the returned list, and skipped.
   */
  async recover(): Promise<string[]> {
    const { records, problems } = await this.journal.readAll();
    const listeners = {
      onExit: (process: ShimProcess, exit: ProcessExit) => this.onExit(process, exit),
      onOom: (id: string) => this.oom(id),
      problem: (line: string) => problems.push(line),
    };
    for (const record of records) {
      if (this.tasks.has(record.id)) continue;
      try {
        const task = await recoverTask(record, this.runtime, listeners);
        this.tasks.set(task.id, task);
        this.records.track(record);
        for (const exec of record.execs) this.records.execSpec(task.id, exec.execId, exec.spec);
        // Their start events went out before the restart: an exit from now on follows at once.
        for (const p of task.processes()) if (p.status !== 'created') this.exitEvents.startPublished(task.id, p.execId);
        void this.records.save(task);
      } catch (err) {
        problems.push(`task ${JSON.stringify(record.id)} not taken over: ${(err as Error).message}`);
      }
    }
    return problems;
  }

  async create(input: CreateTaskInput): Promise<{ pid: number }> {
    assertValidId(input.id, 'task id');
    if (this.tasks.has(input.id)) {
      throw new AlreadyExistsError(`task ${JSON.stringify(input.id)} already exists`, 'TASK.EXISTS');
    }
    if (input.parentCheckpoint !== '') {
      throw new UnimplementedError(
        `task ${JSON.stringify(input.id)}: parent_checkpoint (incremental restore) is not supported`,
        'TASK.PARENT_CHECKPOINT',
      );
    }
    // Reserve the id before the first await so a concurrent Create of it is refused.
    const task: ShimTask = new Task(input.id, input.bundle, input);
    this.tasks.set(input.id, task);
    try {
      const spec = {
        id: input.id,
        bundle: input.bundle,
        stdio: input,
        rootfs: input.rootfs,
        checkpoint: input.checkpoint,
        options: input.options,
      };
      const watch = {
        onExit: (exit: ProcessExit) => this.onExit(task.init, exit),
        onOom: () => this.oom(input.id),
        execs: () => task.execProcesses().flatMap((e) => (e.isAttached ? [e.handle] : [])),
      };
      task.init.attach(await this.runtime.create(spec, watch));
      this.records.track(originOf(spec, this.runtime.name, this.clock.now()));
      await this.records.save(task);
      const { stdin, stdout, stderr, terminal } = input;
      this.events.publish({
        topic: '/tasks/create',
        id: input.id,
        bundle: input.bundle,
        rootfs: input.rootfs,
        stdio: { stdin, stdout, stderr, terminal },
        checkpoint: input.checkpoint,
        pid: task.init.pid,
      });
      return { pid: task.init.pid };
    } catch (err) {
      this.tasks.delete(input.id);
      throw err;
    }
  }

  async start(ref: ProcessRef): Promise<{ pid: number }> {
    const task = this.task(ref.id);
    const process = task.process(ref.execId);
    return this.recorded(task, process, 'start', async () => {
      const pid = await process.handle.start();
      process.assignPid(pid);
      this.events.publish(
        process.isInit
          ? { topic: '/tasks/start', id: ref.id, pid }
          : { topic: '/tasks/exec-started', id: ref.id, execId: ref.execId, pid },
      );
      this.exitEvents.startPublished(ref.id, ref.execId);
      return { pid };
    });
  }

  async delete(ref: ProcessRef): Promise<DeleteView> {
    // containerd deletes a task whose Create failed (docs/failure-domains.md, "A Create cut
    // short"): one cut short by a crash may have left a container no record names.
    if (ref.execId === '' && !this.tasks.has(ref.id) && (await this.runtime.removeLeftover?.(ref.id)))
      this.host.warn(`task ${JSON.stringify(ref.id)}: removed what its Create, cut short by a crash, left`);
    const task = this.task(ref.id);
    const process = task.process(ref.execId);
    return this.transition(process, 'delete', async () => {
      const execs = task.execProcesses();
      if (process.isInit) {
        // The runtime removes the task's directory: no record may land in it meanwhile.
        await this.records.closing(ref.id);
        try {
          // No pid namespace holds a native task's execs together: end them with the task.
          await stopAll(execs, SIGKILL);
          await Promise.allSettled(execs.map((e) => e.handle.delete()));
          await process.handle.delete();
        } catch (err) {
          this.records.reopen(task);
          throw err;
        }
      } else {
        await process.handle.delete();
      }
      const view = { pid: process.pid, ...exitView(process) };
      if (process.isInit) {
        for (const exec of execs) {
          this.exitEvents.deleted(ref.id, exec.execId);
          task.removeExec(exec.execId);
        }
        this.exitEvents.deleted(ref.id, '');
        process.markDeleted();
        this.tasks.delete(ref.id);
        await this.records.forget(ref.id);
        this.events.publish({ topic: '/tasks/delete', id: ref.id, ...view });
      } else {
        this.exitEvents.deleted(ref.id, ref.execId);
        task.removeExec(ref.execId);
        this.records.execDeleted(ref.id, ref.execId);
        await this.records.save(task);
      }
      return view;
    });
  }

  async exec(input: ExecInput): Promise<void> {
    const task = this.task(input.id);
    return this.transition(task.init, 'exec', async () => {
      const exec = task.addExec(input.execId, input);
      try {
        if (input.spec === undefined)
          throw new InvalidArgumentError(`${exec.subject}: spec is missing`, 'EXEC.NO_SPEC');
        const what = `exec spec of ${exec.subject}`;
        const json = decodeJsonAny(input.spec, OCI_PROCESS_TYPE_URL, what);
        const oci = parseOciProcess(json, what);
        const spec = { execId: input.execId, stdio: input, process: oci, processJson: json as Record<string, unknown> };
        exec.attach(await task.init.handle.exec(spec, (exit) => this.onExit(exec, exit)));
        this.records.execSpec(input.id, input.execId, spec.processJson);
        await this.records.save(task);
        this.events.publish({ topic: '/tasks/exec-added', id: input.id, execId: input.execId });
      } catch (err) {
        task.removeExec(input.execId);
        throw err;
      }
    });
  }

  state(ref: ProcessRef): StateView {
    const task = this.task(ref.id);
    const process = task.process(ref.execId);
    // An exec of a paused task is frozen too: report the task's PAUSED, as containerd does.
    const status = task.init.status === 'paused' && process.status === 'running' ? 'paused' : process.status;
    const { stdin, stdout, stderr, terminal } = process.stdio;
    return {
      id: ref.id,
      execId: ref.execId,
      bundle: task.bundle,
      pid: process.pid,
      status,
      stdin,
      stdout,
      stderr,
      terminal,
      ...exitView(process),
    };
  }

  async wait(ref: ProcessRef): Promise<ExitView> {
    const exit = await this.process(ref).exited;
    return { exitStatus: exit.status, exitedAt: exit.exitedAt };
  }

  async kill(input: KillInput): Promise<void> {
    const task = this.task(input.id);
    const process = task.process(input.execId);
    if (!Number.isInteger(input.signal) || input.signal < 0 || input.signal > MAX_SIGNAL) {
      throw new InvalidArgumentError(
        `cannot kill ${process.subject}: signal ${input.signal} is not a signal number (0-${MAX_SIGNAL})`,
        'KILL.BAD_SIGNAL',
      );
    }
    return this.transition(process, 'kill', () =>
      input.all && process.isInit ? task.init.handle.killAll(input.signal) : process.handle.kill(input.signal),
    );
  }

  async pause(id: string): Promise<void> {
    const task = this.task(id);
    await this.recorded(task, task.init, 'pause', () => task.init.handle.pause());
    this.events.publish({ topic: '/tasks/paused', id });
  }

  async resume(id: string): Promise<void> {
    const task = this.task(id);
    await this.recorded(task, task.init, 'resume', () => task.init.handle.resume());
    this.events.publish({ topic: '/tasks/resumed', id });
  }

  async pids(id: string): Promise<PidView[]> {
    const task = this.task(id);
    const execByPid = new Map(task.execProcesses().map((e) => [e.pid, e.execId]));
    const pids = await task.init.handle.pids();
    return pids.map(({ pid }) => ({ pid, execId: execByPid.get(pid) }));
  }

  async closeIO(ref: ProcessRef & { stdin: boolean }): Promise<void> {
    const process = this.process(ref);
    if (ref.stdin) await process.handle.closeStdin();
  }

  async resizePty(input: ResizeInput): Promise<void> {
    const process = this.process(input);
    return this.transition(process, 'resize', () => process.handle.resizePty(input.width, input.height));
  }

  async update(input: UpdateInput): Promise<void> {
    const init = this.task(input.id).init;
    return this.transition(init, 'update', async () => {
      if (input.resources === undefined) return;
      const what = `resources for task ${JSON.stringify(input.id)}`;
      const resources = decodeJsonAny(input.resources, OCI_RESOURCES_TYPE_URL, what);
      if (typeof resources !== 'object' || resources === null || Array.isArray(resources)) {
        throw new InvalidArgumentError(`${what} must be a JSON object (OCI LinuxResources)`, 'UPDATE.INVALID');
      }
      await init.handle.update(resources as Record<string, unknown>);
    });
  }

  async stats(id: string): Promise<StatsView> {
    const task = this.task(id);
    return { ...(await task.init.handle.stats()), runtime: this.runtime.name };
  }

  async checkpoint(input: CheckpointInput): Promise<void> {
    const init = this.task(input.id).init;
    return this.transition(init, 'checkpoint', async () => {
      if (!input.path.startsWith('/')) {
        throw new InvalidArgumentError(
          `checkpoint of task ${JSON.stringify(input.id)}: path must be an absolute directory`,
          'CHECKPOINT.PATH',
        );
      }
      await init.handle.checkpoint(input.path, input.options);
    });
  }

  /** A task's pids; for a sandbox's id, its process's (containerd connects to a sandbox's shim as to a task's on restart). */
  connect(id: string): ConnectView {
    const sandboxPid = this.tasks.has(id) ? undefined : this.sandboxes?.pidOf(id);
    if (sandboxPid !== undefined) return { shimPid: this.host.pid, taskPid: sandboxPid, version: this.host.version };
    const task = this.task(id);
    return { shimPid: this.host.pid, taskPid: task.init.pid, version: this.host.version };
  }

  /**
   * Exits when no task and no sandbox is left (containerd's runc shim); with `now`, kills what
   * is left first. The id is not looked up: containerd sends Shutdown after Delete.
   */
  async shutdown(input: ShutdownInput): Promise<void> {
    if ((this.tasks.size > 0 || (this.sandboxes?.count ?? 0) > 0) && !input.now) return;
    await this.stopEverything(0);
    this.host.requestExit();
  }

  /**
   * Ends every process of every task: `graceMs` > 0 sends SIGTERM first and SIGKILL to
   * what is left after the grace, 0 sends SIGKILL at once. Used by Shutdown(now) and
   * when the shim itself is told to stop.
   */
  async stopEverything(graceMs: number): Promise<void> {
    const tasks = [...this.tasks.values()].filter((t) => t.init.isAttached);
    const processes = tasks.flatMap((t) => t.processes());
    await Promise.all(tasks.map((t) => this.records.closing(t.id)));
    if (graceMs > 0) {
      // A stopped (paused) process would hold SIGTERM pending: continue it first.
      await Promise.allSettled(tasks.filter((t) => t.init.status === 'paused').map((t) => t.init.handle.resume()));
      await stopAll(processes, SIGTERM, this.clock, graceMs);
    }
    await stopAll(processes, SIGKILL);
    await Promise.allSettled(processes.map((p) => p.handle.delete()));
    await Promise.allSettled(tasks.map((t) => this.records.forget(t.id)));
    this.tasks.clear();
  }

  /**
   * The task's pod keeper died and containerd's `delete` removes its container
   * (docs/keeper-protocol.md, "`delete`"): it is dropped here with everything held for it
   * (stdio, exit watches, the keeper's keys, its record in memory) and no event, since
   * containerd publishes its exit; its Waits learn it is gone; its files are `delete`'s. False
   * for an id this process does not hold (or still creates: that Create fails with its keeper).
   */
  async forget(id: string): Promise<boolean> {
    const task = this.tasks.get(id);
    if (task === undefined || !task.init.isAttached) return false;
    this.tasks.delete(id);
    // At once, so that no exit seen from now on is published and nothing more is saved.
    const landed = this.records.closing(id);
    const why = 'was removed by containerd after its pod keeper died';
    for (const process of task.processes()) {
      if (process.isAttached) process.handle.forget?.();
      this.exitEvents.forgotten(id, process.execId);
    }
    for (const exec of task.execProcesses()) task.removeExec(exec.execId, why);
    task.init.markDeleted(why);
    // A record being written lands before `delete` removes the directory, none after.
    await landed;
    this.records.drop(id);
    // As after a Shutdown: with no task left, the serving process lingers, then leaves.
    if (this.tasks.size === 0) this.host.requestExit();
    return true;
  }

  /** Resolves once every task record asked for so far is written: a hand-over waits for it (docs/upgrade.md). */
  recordsSettled(): Promise<void> {
    return this.records.settled();
  }

  get taskCount(): number {
    return this.tasks.size;
  }

  /** An OOM kill in a task this process holds: a forgotten task's (its cgroup going) is not its to tell. */
  private oom(id: string): void {
    if (this.tasks.has(id)) this.events.publish({ topic: '/tasks/oom', id });
  }

  /**
   * The runtime saw the process exit: record it (waking every Wait), then publish it once.
   * Resolves once the record holds it: a runtime that keeps the exit for a restart (a pod
   * keeper) lets go of it then.
   */
  private onExit(process: ShimProcess, exit: ProcessExit): Promise<void> {
    // A process taken over with its exit recorded already was reported before the restart.
    if (process.exit !== undefined || process.status === 'deleted') return Promise.resolve();
    const status = exitStatusOf(exit, this.clock.now());
    process.markExited(status);
    this.exitEvents.exited(process.taskId, process.execId, process.pid, status);
    const task = this.tasks.get(process.taskId);
    return task === undefined ? Promise.resolve() : this.records.save(task);
  }

  /**
   * A transition whose outcome goes into the task's record. The reply waits for the write:
   * a serving process killed after it replied must not come back one change behind (a
   * started exec read as never started, a paused task as running).
   */
  private async recorded<R>(task: ShimTask, process: ShimProcess, op: Operation, effect: () => Promise<R>): Promise<R> {
    try {
      return await this.transition(process, op, effect);
    } finally {
      await this.records.save(task);
    }
  }

  /**
   * The one path of every RPC that acts on a process: inside the process's queue,
   * check `op` against the lifecycle, run its effect, then commit the move (dropped if
   * the process exited meanwhile). Nothing is judged outside the queue, so two
   * requests never both pass a check that only one of them may pass.
   */
  private transition<R>(process: ShimProcess, op: Operation, effect: () => Promise<R>): Promise<R> {
    return process.queue.run(async () => {
      const move = process.check(op);
      const result = await effect();
      process.commit(move);
      return result;
    });
  }

  /** Unknown ids are NOT_FOUND before anything else is judged (docs/shim-contract.md, "Errors"). */
  private task(id: string): ShimTask {
    const task = this.tasks.get(id);
    if (task === undefined || !task.init.isAttached) {
      throw new NotFoundError(`task ${JSON.stringify(id)} not found`, 'TASK.NOT_FOUND');
    }
    return task;
  }

  private process(ref: ProcessRef): ShimProcess {
    return this.task(ref.id).process(ref.execId);
  }
}

function exitView(process: ShimProcess): ExitView {
  const exit = process.exit;
  return { exitStatus: exit?.status ?? 0, exitedAt: exit?.exitedAt };
}

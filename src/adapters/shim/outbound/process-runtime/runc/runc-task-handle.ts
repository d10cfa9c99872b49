import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FailedPreconditionError, InternalError } from '../../../../../domain/shared/errors';
import {
  AdoptedProcess,
  ExecSpec,
  ExitListener,
  LiveStatus,
  ProcessHandle,
  ProcessPid,
  TaskHandle,
} from '../../../../../application/shim/ports/process-runtime.port';
import { TaskStats, taskStatsOf } from '../../../../../domain/shim/task-stats';
import { ContainerCgroup } from './container-cgroup';
import { readProcStat } from '../../../os/proc-fs';
import { readPidFile } from '../../../os/pid-file';
import { ContainerProcess } from './container-process';
import { CriuCheck, criuLogErrors } from './criu';
import { checkpointArgs, readCheckpointOptions } from './checkpoint-options';
import { criuStdioConfig, externalStdio, readStdioRecord, writeStdioRecord } from './criu-stdio';
import { DEFAULT_PATH } from '../../../os/find-executable';
import { RootfsMounts } from './rootfs-mounts';
import { RuncContainer } from './runc-container';
import { INIT_PID_FILE } from '../task-layout';
import { execFiles, execProcessJson, RuncExecHandle } from './runc-exec-handle';
import { parseRuncStats } from './runc-stats';
import { readCgroupV1Stats } from './cgroup-v1-stats';
import { isUnifiedCgroupHost, readCgroupV2Metrics } from './cgroup-v2-metrics';
import { makeDirs } from '../../../../shared/helpers/make-dirs';
import { Launcher } from './launcher';

/** What a task needs besides its container: its init, mounts, config and criu. */
export interface RuncTaskHandleParts {
  readonly init: ContainerProcess;
  readonly mounts: RootfsMounts;
  /** config.json's `process`, the base of every exec's process. */
  readonly configProcess: Readonly<Record<string, unknown>>;
  /** A checkpoint directory to restore from at Start ('' = a fresh container made at Create). */
  readonly restoreFrom: string;
  /** criu's work directory for that restore (runc options' CriuWorkPath), kept; undefined = the task's own. */
  readonly criuWorkPath?: string;
  readonly criu: Pick<CriuCheck, 'status'>;
  /** What runs `runc restore`: this serving process (docs/keeper-protocol.md, "As built"). */
  readonly restorer: Launcher;
  /** The spec has poststart hooks, which runc's own `start` runs (RuncContainer.start). */
  readonly poststartHooks: boolean;
  /** A task taken over whose init still runs: what runc's state shows of it (RuncContainer.liveStatus). */
  readonly observedStatus?: LiveStatus;
}

/**
 * A task on runc: every RPC is one runc subcommand on the container, as in containerd's
 * runtime/v2/runc/task/service.go (docs/runtimes.md), but Start behind a pod keeper, which
 * does `runc start`'s handshake itself (RuncContainer.start). The shim's state machine has
 * already judged the request; runc does the OS work.
 */
export class RuncTaskHandle implements TaskHandle {
  private readonly init: ContainerProcess;

  constructor(
    private readonly container: RuncContainer,
    private readonly parts: RuncTaskHandleParts,
  ) {
    this.init = parts.init;
  }

  get pid(): number {
    return this.init.pid;
  }

  get observedStatus(): LiveStatus | undefined {
    return this.parts.observedStatus;
  }

  get startTime(): number {
    return this.init.startTime;
  }

  private get id(): string {
    return this.container.id;
  }

  /** `runc start` (RuncContainer.start), or for a task created from a checkpoint `runc restore --detach` (containerd restores at Start). */
  async start(): Promise<number> {
    if (this.parts.restoreFrom === '') {
      await this.container.start(this.parts.poststartHooks);
      return this.init.pid;
    }
    const criu = await this.criuBinary('restore');
    const pidFile = join(this.container.taskDir, INIT_PID_FILE);
    const work = this.parts.criuWorkPath ?? join(this.container.taskDir, 'restore-work');
    makeDirs(work, 0o777);
    // The stdio the dump named external comes back as this restore's own (criu-stdio.ts).
    const env = criuEnvironment(criu, work, criuStdioConfig(readStdioRecord(this.parts.restoreFrom), 'restore'));
    const { cli, bundle } = this.container;
    const args = ['restore', '--detach', '--image-path', this.parts.restoreFrom, '--work-path', work];
    args.push('--bundle', bundle, '--pid-file', pidFile);
    try {
      const launch = {
        action: 'restore',
        cli,
        bundle,
        args,
        container: this.id,
        pidFile,
        loggerId: this.id,
        env,
      } as const;
      const pid = await this.init.launch(launch, this.parts.restorer);
      this.container.cgroup = ContainerCgroup.of(pid);
      return pid;
    } catch (err) {
      throw withCriuLog(err, join(work, 'restore.log'));
    }
  }

  async kill(signal: number): Promise<void> {
    await this.container.run('kill', ['kill', this.id, String(signal)]);
  }

  async killAll(signal: number): Promise<void> {
    await this.container.run('kill', ['kill', '--all', this.id, String(signal)]);
  }

  async resizePty(width: number, height: number): Promise<void> {
    await this.init.io.resize(width, height);
  }

  async closeStdin(): Promise<void> {
    this.init.io.closeStdin();
    await this.container.launcher.closeStdin(this.id);
  }

  /** `runc delete --force` (kills an init that never started), then the exit, stdio, mounts and files. */
  async delete(): Promise<void> {
    if (this.init.pid > 0) await this.container.remove();
    await this.init.exited;
    this.init.io.release();
    await this.container.launcher.release(this.id, this.init.logged);
    await this.parts.mounts.unmount();
    this.container.removeFiles();
  }

  /** Its container was removed by containerd's `delete` after its pod keeper died: only this process's part goes. */
  forget(): void {
    this.init.forget();
    this.container.launcher.drop(this.id, this.init.logged);
  }

  async exec(spec: ExecSpec, onExit: ExitListener): Promise<ProcessHandle> {
    return this.makeExec(spec, onExit);
  }

  /**
   * An exec its record says was never started, made all the same: runc wrote its pid file (a
   * Start in flight at a crash, whose record came too late). Its start time is read while it
   * runs; one gone already is its keeper's to tell.
   */
  startedExec(execId: string): AdoptedProcess | undefined {
    const pid = readPidFile(`${execFiles(this.container.taskDir, execId)}.pid`);
    if (pid === undefined) return undefined;
    return { pid, startTime: readProcStat(pid)?.startTicks ?? 0 };
  }

  /** An exec whose Start was in flight at the crash: what its launch makes is ended (KeptLauncher.cancelStart). */
  cancelStart(execId: string): void {
    this.container.launcher.cancelStart(`${this.id}/${execId}`);
  }

  adoptExec(spec: ExecSpec, process: AdoptedProcess, onExit: ExitListener): ProcessHandle {
    return this.makeExec(spec, onExit, process);
  }

  private makeExec(spec: ExecSpec, onExit: ExitListener, adopted?: AdoptedProcess): RuncExecHandle {
    const json = execProcessJson(this.parts.configProcess, spec);
    return new RuncExecHandle(this.container, spec, json, onExit, adopted);
  }

  async pause(): Promise<void> {
    await this.container.run('pause', ['pause', this.id]);
  }

  async resume(): Promise<void> {
    await this.container.run('resume', ['resume', this.id]);
  }

  async pids(): Promise<ProcessPid[]> {
    const output = await this.container.run('ps', ['ps', '--format', 'json', this.id]);
    let pids: unknown;
    try {
      pids = JSON.parse(output);
    } catch {
      throw new InternalError(`${this.container.subject}: runc ps printed no JSON`, 'RUNC.PS');
    }
    return Array.isArray(pids)
      ? pids.filter((pid): pid is number => Number.isInteger(pid)).map((pid) => ({ pid }))
      : [];
  }

  /**
   * On a cgroup v2 (unified only) host the container's cgroup is read directly, as
   * containerd's runc shim does (cgroups v2 Manager.Stat), and the figures carry the whole
   * reading (io.containerd.cgroups.v2.Metrics for containerd); on a cgroup v1 host the same
   * files `runc events --stats` reads (cgroup-v1-stats.ts: a task that exited still answers
   * until its Delete, as through the runc shim); while the cgroup is not known, `runc events
   * --stats` itself (cgroup v1 Metrics).
   */
  async stats(): Promise<TaskStats> {
    const dir = this.container.cgroup?.unifiedDir;
    if (dir !== undefined && isUnifiedCgroupHost())
      return taskStatsOf(readCgroupV2Metrics(dir, this.container.subject));
    const v1 = this.container.cgroup?.v1StatsDirs;
    if (v1 !== undefined) return readCgroupV1Stats(v1, this.container.subject);
    return parseRuncStats(await this.container.run('stats', ['events', '--stats', this.id]), this.container.subject);
  }

  /** `runc update --resources -`: the OCI LinuxResources JSON on stdin. */
  async update(resources: Record<string, unknown>): Promise<void> {
    await this.container.run('update', ['update', '--resources', '-', this.id], { input: JSON.stringify(resources) });
  }

  /**
   * `runc checkpoint` into `path` with the request's options (checkpoint-options.ts), as
   * containerd's runc shim (process/init.go, checkpoint), when criu works here; FailedPrecondition
   * with its reason otherwise. The stdio criu cannot reach is named to it as external and recorded
   * beside the images (criu-stdio.ts). A failed dump leaves the container as it was (runc thaws
   * it; without `exit` it keeps running) and puts criu's log at <bundle>/criu-dump.log, as the runc
   * shim does.
   */
  async checkpoint(path: string, options?: { readonly typeUrl: string; readonly value: Uint8Array }): Promise<void> {
    const request = readCheckpointOptions(options, this.container.subject);
    const criu = await this.criuBinary('checkpoint');
    const work = request.workPath !== '' ? request.workPath : join(this.container.taskDir, 'checkpoint-work');
    makeDirs(path, 0o700);
    makeDirs(work, 0o777);
    const stdio = externalStdio(this.init.stdio);
    try {
      if (stdio.length > 0) writeStdioRecord(path, stdio);
      const env = criuEnvironment(criu, work, criuStdioConfig(stdio, 'dump'));
      await this.container.run('checkpoint', [...checkpointArgs(request, path, work), this.id], { env });
    } catch (err) {
      const log = join(this.container.bundle, 'criu-dump.log');
      try {
        copyFileSync(join(work, 'dump.log'), log);
      } catch {
        // no log: criu did not run
      }
      throw withCriuLog(err, log);
    } finally {
      if (request.workPath === '') rmSync(work, { recursive: true, force: true });
    }
  }

  private async criuBinary(what: 'checkpoint' | 'restore'): Promise<string> {
    const status = await this.parts.criu.status();
    if (status.binary === undefined) {
      throw new FailedPreconditionError(`cannot ${what} ${this.container.subject}: ${status.problem}`, 'CRIU.UNUSABLE');
    }
    return status.binary;
  }
}

/** Adds criu's own last errors from its log, and the log's path, to a failed checkpoint or restore. */
function withCriuLog(err: unknown, log: string): unknown {
  const errors = criuLogErrors(log);
  if (errors.length === 0 || !(err instanceof Error)) return err;
  err.message = `${err.message} (criu: ${errors.join('; ')}; log ${log})`;
  return err;
}

/**
 * runc's environment for a checkpoint or restore: runc 1.2 and later run the `criu` of their PATH
 * (their `--criu` is ignored, then gone), so criu's directory (Debian's /usr/sbin, which a shim's
 * PATH may lack) is added to it; and the stdio criu is to take as external, in a configuration
 * file that CRIU_CONFIG_FILE names.
 */
function criuEnvironment(criu: string, work: string, config: string): Record<string, string> {
  const dir = dirname(criu);
  const path = process.env.PATH ?? DEFAULT_PATH;
  const env: Record<string, string> = {
    PATH: path.split(':').includes(dir) ? path : `${path}:${dir}`,
  };
  if (config !== '') {
    const file = join(work, 'skiff-criu.conf');
    writeFileSync(file, config, { mode: 0o600 });
    env.CRIU_CONFIG_FILE = file;
  }
  return env;
}

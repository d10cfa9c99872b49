import { readFileSync } from 'node:fs';
import { InternalError } from '../../../../../domain/shared/errors';
import { ProcessExit } from '../../../../../domain/shim/exit-status';
import { Stdio } from '../../../../../domain/shim/task-process';
import { ExitListener } from '../../../../../application/shim/ports/process-runtime.port';
import { watchExit } from '../../../os/exit-watch';
import { Reaper } from '../../../os/reaper';
import { ContainerIo } from './container-io';

/** Runs before an exit is reported (the init's: end what is left of a container without its own pid namespace). */
export type BeforeExitReport = () => Promise<void>;

/**
 * One process of a container, init or exec: its stdio, its pid once a runc call has made
 * it, and its exit, reported once after its output was handed on.
 */
export class ContainerProcess {
  readonly io: ContainerIo;
  private currentPid = 0;
  private exitSeen: Promise<void> | undefined;
  private readonly beforeExitReport: BeforeExitReport;

  constructor(
    stdio: Stdio,
    readonly subject: string,
    private readonly reaper: Reaper,
    private readonly onExit: ExitListener,
    options: { beforeExitReport?: BeforeExitReport; consoleSized?: boolean } = {},
  ) {
    this.io = new ContainerIo(stdio, subject, options.consoleSized);
    this.beforeExitReport = options.beforeExitReport ?? (async () => undefined);
  }

  get pid(): number {
    return this.currentPid;
  }

  /** Resolves once the exit has been reported; undefined while no process was made. */
  get exited(): Promise<void> | undefined {
    return this.exitSeen;
  }

  /**
   * Runs the runc call that makes the process (`create`, `exec --detach`, `restore
   * --detach`), then adopts it: reads its pid file and watches it. The orphan sweep is
   * held off meanwhile, since the process is re-parented to the shim as runc exits.
   */
  async launch(pidFile: string, makeProcess: (io: ContainerIo) => Promise<unknown>): Promise<number> {
    try {
      await this.reaper.adopting(async () => {
        await makeProcess(this.io);
        this.currentPid = readPidFile(pidFile, this.subject);
        this.exitSeen = new Promise((resolve) =>
          watchExit(this.currentPid, (exit) => void this.report(exit).then(resolve)),
        );
      });
      this.io.afterRunc();
    } catch (err) {
      // The caller removes a process runc made; its exit, if watched, still gets reported.
      this.io.release();
      throw err;
    }
    return this.currentPid;
  }

  private async report(exit: ProcessExit): Promise<void> {
    await this.beforeExitReport().catch(() => undefined);
    await this.io.finish();
    this.onExit(exit);
  }
}

function readPidFile(path: string, subject: string): number {
  let pid = NaN;
  try {
    pid = Number(readFileSync(path, 'utf8').trim());
  } catch {
    pid = NaN;
  }
  if (!Number.isInteger(pid) || pid <= 0)
    throw new InternalError(`${subject}: runc wrote no pid to ${path}`, 'RUNC.PID_FILE');
  return pid;
}

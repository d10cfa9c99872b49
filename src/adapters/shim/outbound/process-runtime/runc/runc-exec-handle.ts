import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AdoptedProcess,
  ExecSpec,
  ExitListener,
  ProcessHandle,
} from '../../../../../application/shim/ports/process-runtime.port';
import { FailedPreconditionError } from '../../../../../domain/shared/errors';
import { signalProcess } from '../signal-process';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../stdio/pty-master';
import { checkStdio } from './container-io';
import { ContainerProcess } from './container-process';
import { RuncContainer } from './runc-container';

/** Fields of the container's own process an exec does not inherit. */
const NOT_INHERITED = ['args', 'terminal', 'consoleSize', 'commandLine'];

/**
 * The process JSON `runc exec --process` gets: the container's config.json process
 * (capabilities, rlimits, env, user, cwd...) overlaid with what the client sent, as
 * `docker exec` inherits from its container; the request decides the terminal.
 */
export function execProcessJson(
  containerProcess: Readonly<Record<string, unknown>>,
  spec: ExecSpec,
): Record<string, unknown> {
  const inherited = Object.fromEntries(
    Object.entries(containerProcess).filter(([key]) => !NOT_INHERITED.includes(key)),
  );
  const json: Record<string, unknown> = {
    ...inherited,
    ...spec.processJson,
    args: spec.process.args,
    terminal: spec.stdio.terminal,
  };
  // An exec runs before runc returns the terminal to the shim: runc must size it itself.
  if (spec.stdio.terminal && json.consoleSize === undefined)
    json.consoleSize = { width: DEFAULT_COLS, height: DEFAULT_ROWS };
  return json;
}

/** Where an exec's files go, without their extension: `.json` its OCI process, `.pid` runc's pid file. */
export function execFiles(taskDir: string, execId: string): string {
  return join(taskDir, `exec-${execId}`);
}

/** An exec process of a runc container: prepared at Exec (stdio checked), made by `runc exec --detach` at Start (stdio opened). */
export class RuncExecHandle implements ProcessHandle {
  private readonly process: ContainerProcess;
  private readonly files: string;
  private readonly execId: string;

  constructor(
    private readonly container: RuncContainer,
    spec: ExecSpec,
    private readonly processJson: Record<string, unknown>,
    onExit: ExitListener,
    /** An exec a previous serving process started, taken over. */
    adopted?: AdoptedProcess,
  ) {
    const subject = `exec ${JSON.stringify(spec.execId)} of ${container.subject}`;
    this.execId = spec.execId;
    // A bad stdio string is refused at Exec; the FIFOs and files are opened at Start.
    if (adopted === undefined) checkStdio(spec.stdio, subject, container.launcher.keeper);
    // The pod keeper's key: `<task id>/<exec id>` (docs/keeper-protocol.md).
    const key = `${container.id}/${spec.execId}`;
    this.process = new ContainerProcess(spec.stdio, subject, key, container.launcher, onExit, {
      consoleSized: true,
      ioOwner: container.ioOwner,
      adopted: adopted !== undefined,
      openAtLaunch: adopted === undefined,
    });
    if (adopted !== undefined) this.process.adopt(adopted);
    this.files = execFiles(container.taskDir, spec.execId);
  }

  get pid(): number {
    return this.process.pid;
  }

  get startTime(): number {
    return this.process.startTime;
  }

  async start(): Promise<number> {
    const processFile = `${this.files}.json`;
    const pidFile = `${this.files}.pid`;
    writeFileSync(processFile, JSON.stringify(this.processJson), { mode: 0o600 });
    const { cli, bundle, id } = this.container;
    const args = ['exec', '--detach', '--process', processFile, '--pid-file', pidFile];
    return this.process.launch({ action: 'exec', cli, bundle, args, container: id, pidFile, loggerId: this.execId });
  }

  async kill(signal: number): Promise<void> {
    signalProcess(this.pid, signal, this.process.subject);
  }

  async resizePty(width: number, height: number): Promise<void> {
    if (this.pid === 0)
      throw new FailedPreconditionError(
        `${this.process.subject} has not started: no terminal to resize yet`,
        'PTY.NONE',
      );
    await this.process.io.resize(width, height);
  }

  async closeStdin(): Promise<void> {
    this.process.closeStdin();
    await this.container.launcher.closeStdin(this.process.key);
  }

  /** Removed with its container (RuncTaskHandle.forget); its files go with the task's directory. */
  forget(): void {
    this.process.forget();
    this.container.launcher.drop(this.process.key, this.process.logged);
  }

  async delete(): Promise<void> {
    await this.process.exited;
    this.process.releaseIo();
    await this.container.launcher.release(this.process.key, this.process.logged);
    rmSync(`${this.files}.json`, { force: true });
    rmSync(`${this.files}.pid`, { force: true });
  }
}

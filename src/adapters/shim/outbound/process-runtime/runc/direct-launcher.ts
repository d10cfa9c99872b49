import { InternalError } from '../../../../../domain/shared/errors';
import { AdoptedProcess } from '../../../../../application/shim/ports/process-runtime.port';
import { watchExit } from '../../../os/exit-watch';
import { readPidFile } from '../../../os/pid-file';
import { readProcStat } from '../../../os/proc-fs';
import { Reaper } from '../../../os/reaper';
import { ExitReport } from '../../keeper/pod-keepers';
import { watchAdoptedExit } from './adopted-exit';
import { LaunchedProcess, Launcher, LaunchIo, ProcessLaunch } from './launcher';
import { fromRuncFailure } from './runc-errors';

/**
 * Processes made and kept by this serving process (SKIFF_KEEPER=0, or outside containerd; and
 * every `runc restore`: docs/keeper-protocol.md, "As built"): runc runs here, and its process,
 * re-parented to this subreaper as runc exits, is watched by pidfd. Nothing else holds their
 * stdio, so CloseIO, Delete and Forget have nothing more to tell.
 */
export class DirectLauncher implements Launcher {
  readonly keeper = undefined;

  constructor(private readonly reaper: Reaper) {}

  /** The orphan sweep is held off meanwhile: the process is re-parented here as runc exits. */
  async launch(launch: ProcessLaunch, io: LaunchIo, process: LaunchedProcess): Promise<AdoptedProcess> {
    return this.reaper.adopting(async () => {
      const { cli, bundle, env } = launch;
      const args = [...launch.args, ...io.runcArgs, launch.container];
      try {
        await cli.run({ args, bundle, stdio: io.runcStdio, env });
      } catch (err) {
        throw fromRuncFailure(err, launch.action, process.subject);
      }
      const pid = runcPid(launch.pidFile, process.subject);
      const made = { pid, startTime: readProcStat(pid)?.startTicks ?? 0 };
      watchExit(pid, (exit) => void process.report(exit));
      return made;
    });
  }

  watchAdopted(process: AdoptedProcess, _key: string, exits: ExitReport): void {
    watchAdoptedExit(process.pid, process.startTime, (exit) => void exits.report(exit));
  }

  /** runc's own `start` does the handshake: this process is not the init's parent. */
  async start(): Promise<boolean> {
    return false;
  }

  async closeStdin(): Promise<void> {
    // Only this process held the stdin writer, which ContainerIo.closeStdin closed.
  }

  async release(): Promise<void> {
    // Nothing is kept elsewhere: `runc delete` and the stdio's release are all.
  }

  drop(): void {
    // As release.
  }

  cancelStart(): void {
    // A launch here dies with the process that ran it.
  }
}

function runcPid(path: string, subject: string): number {
  const pid = readPidFile(path);
  if (pid === undefined) throw new InternalError(`${subject}: runc wrote no pid to ${path}`, 'RUNC.PID_FILE');
  return pid;
}

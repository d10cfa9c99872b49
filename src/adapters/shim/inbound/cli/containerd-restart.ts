import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError, FailedPreconditionError, InternalError } from '../../../../domain/shared/errors';
import { escapedControls } from '../../../../domain/shared/quoted';
import { keepersWanted } from '../../os/keepers-wanted';
import { readPidFile } from '../../os/pid-file';
import {
  installedServing,
  isRunning,
  ServingIdentity,
  ServingProcess,
  servingPidFiles,
  servingProcessesRunning,
  servingProcessOf,
} from '../../os/serving-processes';

export interface RestartOptions {
  /** containerd's state directory (`state` in its config.toml). */
  readonly state: string;
  /** Only the serving processes of this containerd namespace. */
  readonly namespace?: string;
  /** How long one serving process may take to hand over (its calls' 10 s grace, its events' 5 s, and start-up). */
  readonly timeoutMs?: number;
  readonly out: (line: string) => void;
  /** A process ignored because it only looks like a serving process: one line each (stderr). */
  readonly warn: (line: string) => void;
  /** Whose serving processes are taken: root's, running this package's bin/containerd-daemon.js (tests name another). */
  readonly identity?: ServingIdentity;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const POLL_MS = 20;

/**
 * `skiff containerd restart` (docs/upgrade.md): hands the work of each serving process under
 * `<state>/skiff` to a new one started from the package now on disk (SIGUSR2, which the
 * serving process answers in src/infrastructure/entry/containerd-hand-over.ts), one after the
 * other, and says what it did. Refuses, before signalling any, when one runs without pod
 * keepers: its containers are its children and would end with it. Fails when a hand-over did
 * not complete in time; never reports one that did not.
 */
export async function restartServing(options: RestartOptions): Promise<void> {
  // A mistyped --state would otherwise read as "nothing to restart" while the old version serves on.
  if (!existsSync(options.state))
    throw new ConfigurationError(
      `containerd's state directory ${options.state} does not exist: pass the \`state\` of containerd's config.toml with --state`,
      'RESTART.NO_STATE',
    );
  const skiffState = join(options.state, 'skiff');
  const identity = options.identity ?? installedServing();
  const inNamespace = (p: { namespace: string }) =>
    options.namespace === undefined || p.namespace === options.namespace;
  const serving = listPidFiles(skiffState)
    .map((pidFile) => servingProcessOf(pidFile, identity))
    .filter((p): p is ServingProcess => p !== undefined)
    .filter(inNamespace);
  const known = new Set(serving.map((p) => p.pid));
  // Any user can run a process with a serving process's command line: only root's running the
  // installed script are judged, so that such a process can neither stop a restart nor be signalled.
  const running = servingProcessesRunning(skiffState, identity);
  for (const p of running.ignored.filter(inNamespace))
    // Its command line is anyone's text: escaped, so that it cannot write to the terminal.
    options.warn(
      escapedControls(
        `skiff: ignoring process ${p.pid} (namespace ${p.namespace}): ${p.why}, so it is no serving process`,
      ),
    );
  const unknown = running.serving.find((p) => !known.has(p.pid) && inNamespace(p));
  if (unknown !== undefined)
    throw new FailedPreconditionError(
      `the serving process ${unknown.pid} (namespace ${unknown.namespace}) has written no pid file: it is starting ` +
        '(try again), or it is of a skiff that cannot hand over, and serves on with its own version until its ' +
        'containers end: nothing was restarted',
      'RESTART.NO_PID_FILE',
    );
  if (serving.length === 0) {
    const which = options.namespace === undefined ? '' : ` of namespace ${options.namespace}`;
    options.out(`no skiff serving process${which} runs under ${skiffState}: nothing to restart`);
    return;
  }
  const unreadable = serving.find((p) => p.env === undefined);
  if (unreadable !== undefined)
    throw new FailedPreconditionError(
      `cannot read the environment of the serving process ${unreadable.pid}: run skiff containerd restart as root`,
      'RESTART.NOT_ROOT',
    );
  const alone = serving.find((p) => !keepersWanted(p.env ?? {}));
  if (alone !== undefined)
    throw new FailedPreconditionError(
      `the serving process ${alone.pid} (namespace ${alone.namespace}) runs without pod keepers, so its containers ` +
        `would end with it: nothing was restarted; remove SKIFF_KEEPER=0 from containerd's environment (systemctl edit ` +
        `containerd), then pods started from then on can be handed over`,
      'RESTART.NO_KEEPERS',
    );
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  for (const process of serving) await handOver(process, timeoutMs, identity, options.out);
}

async function handOver(
  old: ServingProcess,
  timeoutMs: number,
  identity: ServingIdentity,
  out: (line: string) => void,
): Promise<void> {
  const started = Date.now();
  try {
    process.kill(old.pid, 'SIGUSR2');
  } catch (err) {
    // ESRCH: it left on its own since it was found (its linger ended): nothing to hand over.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return;
    throw new FailedPreconditionError(
      `cannot signal the serving process ${old.pid} (${code === 'EPERM' ? 'permission denied: run it as root' : String(code ?? err)})`,
      'RESTART.SIGNAL',
    );
  }
  const deadline = started + timeoutMs;
  while (isRunning(old.pid)) {
    if (Date.now() > deadline)
      throw new InternalError(
        `the serving process ${old.pid} (namespace ${old.namespace}) did not hand over within ${timeoutMs / 1000} s: ` +
          `see containerd's log (journalctl -u containerd)`,
        'RESTART.TIMEOUT',
      );
    await sleep(POLL_MS);
  }
  for (;;) {
    const now = readPidFile(old.pidFile);
    const successor = now !== undefined && now !== old.pid ? servingProcessOf(old.pidFile, identity) : undefined;
    if (successor !== undefined) {
      const seconds = ((Date.now() - started) / 1000).toFixed(2);
      out(`namespace ${old.namespace}: serving process ${old.pid} handed over to ${successor.pid} in ${seconds} s`);
      return;
    }
    if (Date.now() > deadline)
      throw new InternalError(
        `the serving process ${old.pid} (namespace ${old.namespace}) left, but no new one serves ${old.socket} after ` +
          `${timeoutMs / 1000} s: see containerd's log (journalctl -u containerd); the pod keepers start one at their next call`,
        'RESTART.NO_SUCCESSOR',
      );
    await sleep(POLL_MS);
  }
}

function listPidFiles(skiffState: string): string[] {
  try {
    return servingPidFiles(skiffState);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied: run it as root' : String(code ?? err);
    throw new FailedPreconditionError(
      `cannot read ${skiffState} (${why}); --state is containerd's state directory`,
      'RESTART.STATE',
    );
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

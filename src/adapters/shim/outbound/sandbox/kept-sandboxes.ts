import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FailedPreconditionError } from '../../../../domain/shared/errors';
import type { ProcessExit } from '../../../../domain/shim/exit-status';
import { procSysctlKey, type SandboxSpec } from '../../../../domain/shim/sandbox';
import type { SandboxProcesses } from '../../../../application/shim/ports/sandbox-processes.port';
import { exitOfWaitStatus, PodKeepers, podSocketOfBundle } from '../keeper/pod-keepers';

/** In the sandbox bundle, as the runc shim keeps its init.pid in a task's: what `sandbox` writes, and what it says on failing. */
const PID_FILE = 'sandbox.pid';
const LOG_FILE = 'sandbox.log';

/** The keeper's key of a sandbox process: `:` is in no containerd identifier, so no task's key is one. */
function keyOf(spec: SandboxSpec): string {
  return `sandbox:${spec.id}`;
}

/** containerd-shim-skiff-v2's `sandbox` command line (native/containerd-shim/sandbox.c) for `spec`. */
export function sandboxArgv(spec: SandboxSpec, pidFile: string): string[] {
  const argv = ['/proc/self/exe', 'sandbox', '--pid-file', pidFile];
  if (spec.netns !== undefined) argv.push('--netns', spec.netns);
  if (spec.hostname === undefined) argv.push('--host-uts');
  else if (spec.hostname !== '') argv.push('--hostname', spec.hostname);
  if (spec.ownPid) argv.push('--share-pid');
  if (!spec.ownIpc) argv.push('--host-ipc');
  for (const [name, value] of spec.sysctls) argv.push('--sysctl', `${procSysctlKey(name)}=${value}`);
  return argv;
}

/**
 * Sandbox processes as children of the pod's keeper (docs/sandbox-api.md): `start` started the
 * keeper for the sandbox and wrote its socket into the bundle's `address`; the keeper runs its
 * own binary's `sandbox` (argv[0] /proc/self/exe: the binary `start` judged) and holds the pid
 * it leaves in the pid file, as it holds a container's init after `runc create`.
 */
export class KeptSandboxes implements SandboxProcesses {
  constructor(private readonly keepers: PodKeepers) {}

  async start(spec: SandboxSpec, bundle: string, exited: (exit: ProcessExit) => Promise<void>): Promise<number> {
    const pod = podSocketOfBundle(bundle);
    if (pod === undefined)
      throw new FailedPreconditionError(
        `sandbox ${spec.id}: its bundle ${bundle} names no pod keeper; skiff serves the Sandbox API behind pod keepers only (unset SKIFF_KEEPER in containerd's environment)`,
        'SANDBOX.NO_KEEPER',
      );
    const pidFile = join(bundle, PID_FILE);
    const logFile = join(bundle, LOG_FILE);
    rmSync(pidFile, { force: true });
    const log = openSync(logFile, 'w', 0o600);
    let launched;
    try {
      launched = await this.keepers.launch(
        pod,
        { key: keyOf(spec), argv: sandboxArgv(spec, pidFile), pidFile, fds: [{ role: '2', fd: log }] },
        { report: exited },
      );
    } finally {
      closeSync(log);
    }
    if (launched.error === '' && launched.status === 0 && launched.pid > 0) return launched.pid;
    const said = readFileSync(logFile, 'utf8').trim().split('\n').pop() ?? '';
    const exit = launched.status >= 0 ? exitOfWaitStatus(launched.status) : undefined;
    const detail =
      launched.error !== ''
        ? launched.error
        : said !== ''
          ? said
          : `it exited with ${exit?.signal != null ? `signal ${exit.signal}` : `code ${exit?.code ?? -1}`}`;
    throw new FailedPreconditionError(
      `sandbox ${spec.id}: its pod keeper could not start the process that holds the pod's namespaces: ${detail}`,
      'SANDBOX.START',
    );
  }

  adopt(spec: SandboxSpec, bundle: string, _pid: number, exited: (exit: ProcessExit) => Promise<void>): void {
    const pod = podSocketOfBundle(bundle);
    if (pod === undefined)
      throw new FailedPreconditionError(
        `sandbox ${spec.id}: its bundle ${bundle} names no pod keeper to take its process over from`,
        'SANDBOX.NO_KEEPER',
      );
    this.keepers.watchAdopted(pod, keyOf(spec), { report: exited });
  }

  signal(pid: number, signal: 'SIGTERM' | 'SIGKILL'): void {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already: its exit is on its way from the keeper.
    }
  }

  async release(spec: SandboxSpec, bundle: string): Promise<void> {
    const pod = podSocketOfBundle(bundle);
    if (pod !== undefined) await this.keepers.release(pod, keyOf(spec));
  }

  drop(spec: SandboxSpec, bundle: string): void {
    const pod = podSocketOfBundle(bundle);
    if (pod !== undefined) this.keepers.drop(pod, keyOf(spec));
  }
}

import { rmSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { TaskService } from '../../application/shim/task/task-service';
import { TaskHandlers, taskHandlers } from '../../adapters/shim/inbound/task-rpc/task-handlers';
import { taskCodec } from '../../adapters/shim/wire/codec/task-codec';
import { listenTtrpcTaskServer } from '../../adapters/shim/inbound/ttrpc/ttrpc-task-server';
import { KeeperPreamble } from '../../adapters/shim/inbound/ttrpc/keeper-preamble';
import { ShimProcessHost } from '../../adapters/shim/outbound/shim-host/shim-process-host';
import { buildContainer } from '../shared/container';
import { STOP_GRACE_MS } from '../shim/serve-shim';
import { CONTAINERD_RUNTIME } from '../shim/runtimes';
import { CONTAINERD_LOG, FORWARDED_EVENTS, POD_KEEPERS } from '../shim/shim.module';
import { makeDirs } from '../../adapters/shared/helpers/make-dirs';
import { pidFileOf, removePidFile, writePidFile } from '../../adapters/shim/os/pid-file';
import { handOverTo, settleForHandOver } from './containerd-hand-over';
import { keepersWanted } from '../../adapters/shim/os/keepers-wanted';
import { awaitPromotion } from '../../adapters/shim/os/standby';
import { POD_SANDBOXES } from '../../application/shim/ports/pod-sandboxes.port';
import { SandboxService } from '../../application/shim/sandbox/sandbox-service';
import { sandboxHandlers } from '../../adapters/shim/inbound/sandbox-rpc/sandbox-handlers';

/** How the group's serving process is started by containerd-shim-skiff-v2 `start` (native/containerd-shim/start.c). */
export interface GroupServerConfig {
  readonly namespace: string;
  /** containerd's gRPC address, as given to the shim binary. */
  readonly address: string;
  /** containerd's ttrpc address ($TTRPC_ADDRESS), where events are forwarded. */
  readonly ttrpcAddress: string;
  /** <containerd state>/skiff/<namespace>: runc's root and the tasks' files. */
  readonly stateDir: string;
  /** The group socket, listening on fd 3; removed when the server leaves. */
  readonly socket: string;
  readonly debug: boolean;
  /** A standby's gate (the unit's supervisor starts one beside the serving process): the fd it waits on. */
  readonly gate?: number;
}

/**
 * By default the serving process lives as long as the node: the next pod finds it warm, never
 * Node's start-up (docs/node-daemon.md). SKIFF_SHIM_LINGER_MS (in containerd's environment)
 * makes it leave that long after its last task instead.
 */
export const DEFAULT_LINGER_MS = Infinity;
/** How long a leaving server waits for its last events to reach containerd (containerd's shims: 5 s). */
const EVENTS_FLUSH_MS = 5000;
const LISTENER_FD = 3;

export function parseGroupServerArgs(argv: readonly string[]): GroupServerConfig | undefined {
  const values: Record<string, string> = {};
  let debug = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--debug') debug = true;
    else if (argv[i].startsWith('--') && argv[i + 1] !== undefined) values[argv[i].slice(2)] = argv[++i];
    else return undefined;
  }
  const { namespace, address, socket } = values;
  const ttrpcAddress = values['ttrpc-address'];
  const stateDir = values['state-dir'];
  if ([namespace, address, socket, ttrpcAddress, stateDir].some((v) => v === undefined || v === '')) return undefined;
  const gate = values.gate === undefined ? undefined : Number(values.gate);
  if (gate !== undefined && !(Number.isInteger(gate) && gate > 2)) return undefined;
  return { namespace, address, ttrpcAddress, stateDir, socket, debug, ...(gate !== undefined && { gate }) };
}

/** Before serving: stderr, which `start` made the first bundle's log FIFO (containerd copies it to its own log). */
function logLine(line: string): void {
  try {
    writeSync(2, `skiff[${process.pid}]: ${line}\n`);
  } catch {
    // containerd went away and took the FIFO's reader with it: nobody to tell.
  }
}

/**
 * Serves one group's tasks over ttrpc until it has had no task for the linger time,
 * with the runc runtime and events forwarded to containerd. Exits 0 when it leaves.
 */
export async function serveGroup(config: GroupServerConfig, lingerMs = lingerFromEnv()): Promise<void> {
  makeDirs(config.stateDir, 0o700);
  // `start` ran in the first container's bundle, which goes with that container: programs
  // spawned from a removed working directory fail.
  process.chdir(config.stateDir);
  const container = buildContainer({
    shim: {
      runtime: CONTAINERD_RUNTIME,
      stateDir: config.stateDir,
      containerd: {
        namespace: config.namespace,
        ttrpcAddress: config.ttrpcAddress,
        socket: config.socket,
        keepers: keepersWanted(process.env),
      },
    },
  });
  // What serves beside the task service is bound in the shim module (shim.module.ts); this entry drives it.
  const containerdLog = container.get(CONTAINERD_LOG);
  const host = container.get(ShimProcessHost);
  const events = container.get(FORWARDED_EVENTS);
  const keepers = container.isBound(POD_KEEPERS) ? container.get(POD_KEEPERS) : undefined;
  // The host's lines go to containerd's log (through containerdLog), as every line of this process does.
  const logged = (line: string) => host.warn(line);
  const log = config.debug ? logged : () => undefined;
  const service = container.get(TaskService);
  // A standby goes no further, warm, until the serving process dies (docs/node-daemon.md, "The standby").
  if (config.gate !== undefined) {
    await awaitPromotion(config.gate, logged);
    logged('the standby serves: it takes the tasks over');
  }
  // The tasks a previous server of this namespace left running (docs/failure-domains.md), only
  // behind pod keepers: without one, containerd saw the old server's connections close and
  // runs `delete` for each of its tasks, so a task taken over here would be killed under it
  // and kept STOPPED with nobody left to Delete it.
  if (keepers !== undefined) for (const line of await service.recover()) logged(line);
  // The Sandbox API beside the tasks, behind pod keepers (docs/sandbox-api.md); its sandboxes taken over as the tasks are.
  // Asked by its port's token: the class itself would be autobound, behind keepers or not.
  const sandboxService = container.isBound(POD_SANDBOXES) ? container.get(SandboxService) : undefined;
  for (const line of sandboxService?.recover() ?? []) logged(line);
  const handlers = taskHandlers(service, taskCodec('containerd'));
  // A pod keeper's relay names its pod socket: that pod's bundles hold it as their address,
  // for as long as one of its relays is open (a dead keeper's is forgotten with its last).
  const onKeeper = ({ fields }: KeeperPreamble, socket: Socket) => {
    if (fields.keeper !== undefined) socket.once('close', containerdLog.servedThrough(`unix://${fields.keeper}`));
  };
  // `delete` after a task's pod keeper died: containerd removes the task, this process lets it go.
  const onForget = async ({ fields }: KeeperPreamble) => {
    if (fields.task !== undefined && (await service.forget(fields.task)))
      logged(`task ${fields.task} forgotten: its pod keeper died and containerd removed it`);
    // A sandbox's `delete` names its id as a task's does (containerd's ids are one space).
    else if (fields.task !== undefined && sandboxService?.forget(fields.task) === true)
      logged(`sandbox ${fields.task} forgotten: its pod keeper died and containerd removed it`);
  };
  const sandbox = sandboxService && sandboxHandlers(sandboxService);
  const server = await listenTtrpcTaskServer(
    { fd: LISTENER_FD },
    config.debug ? traced(handlers, log) : handlers,
    {
      onKeeper,
      onControl: keepers && ((socket, preamble, first) => keepers.accept(socket, preamble.fields.keeper, first)),
      onForget,
    },
    sandbox && config.debug ? traced(sandbox, log) : sandbox,
  );
  log(`serving namespace ${config.namespace} on ${config.socket}`);
  const pidFile = pidFileOf(config.socket);

  let leaving = false;
  const leave = async (graceMs: number) => {
    if (leaving) return;
    leaving = true;
    // First the socket, so a `start` from now on makes a new server instead of finding this one.
    rmSync(config.socket, { force: true });
    removePidFile(pidFile);
    await service.stopEverything(graceMs).catch(() => undefined);
    await server.stop();
    await events.flush(EVENTS_FLUSH_MS);
    process.exit(0);
  };
  // SIGUSR2: hand every task over to a new serving process, started from the package now on
  // disk, with no call refused (docs/upgrade.md). SIGHUP: the same steps with no successor, the
  // tasks released to the pod keepers, which send what they kept to the serving process they
  // find or start next (the node daemon's supervisor at `systemctl stop`: docs/node-daemon.md).
  // Only behind pod keepers: without them the containers are this process's children and go with it.
  const handOver = async (signal: 'SIGUSR2' | 'SIGHUP') => {
    if (leaving) return;
    const what = signal === 'SIGUSR2' ? 'hand-over' : 'release';
    if (keepers === undefined) {
      logged(`${signal} ignored: without pod keepers (SKIFF_KEEPER=0) a ${what} would end every container`);
      return;
    }
    leaving = true;
    clearTimeout(timer);
    const started = Date.now();
    const h = { server, keepers, service, events, listenerFd: LISTENER_FD, log: logged };
    try {
      if (signal === 'SIGUSR2')
        logged(`handed over to the new serving process ${await handOverTo(h)} in ${Date.now() - started} ms`);
      else {
        await settleForHandOver(h); // the listener's copy it returns goes with this process
        logged('released every task to the pod keepers');
      }
      removePidFile(pidFile);
      process.exit(0);
    } catch (err) {
      // Leaving is then a crash's loss at most: the pod keepers start a new serving process.
      removePidFile(pidFile);
      logged(`the ${what} failed (${err instanceof Error ? err.message : String(err)}): leaving to the pod keepers`);
      process.exit(1);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const lingerThenLeave = (acceptedBefore: number) => {
    clearTimeout(timer);
    if (lingerMs === Infinity) return;
    timer = setTimeout(() => {
      // A connection since then may be a container on its way: wait again.
      if (service.taskCount > 0) return;
      if (server.accepted !== acceptedBefore) lingerThenLeave(server.accepted);
      else void leave(0);
    }, lingerMs);
  };
  host.whenExitRequested(() => lingerThenLeave(server.accepted));
  process.on('SIGUSR2', () => void handOver('SIGUSR2'));
  process.on('SIGHUP', () => void handOver('SIGHUP'));
  process.on('SIGTERM', () => void leave(STOP_GRACE_MS));
  process.on('SIGINT', () => void leave(STOP_GRACE_MS));
  // How `skiff containerd restart` finds this process: written once it serves and its signals are handled.
  writePidFile(pidFile);
  // A server nobody used (its `start` failed later): leave after the linger too, if there is one.
  lingerThenLeave(server.accepted);
}

/** With -debug: every call on the log with how long it took (containerd passes -debug at log level debug). */
function traced(handlers: TaskHandlers, log: (line: string) => void): TaskHandlers {
  return new Map(
    [...handlers].map(([method, handle]) => [
      method,
      async (request: Buffer) => {
        const started = process.hrtime.bigint();
        try {
          return await handle(request);
        } finally {
          log(`${method} ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)} ms`);
        }
      },
    ]),
  );
}

function lingerFromEnv(): number {
  const value = Number(process.env.SKIFF_SHIM_LINGER_MS);
  return Number.isFinite(value) && value >= 0 && process.env.SKIFF_SHIM_LINGER_MS !== '' ? value : DEFAULT_LINGER_MS;
}

/** bin/containerd-daemon.js: serve, or one line on the log and exit 2 (bad arguments) or 1. */
export function runGroupServer(argv: readonly string[]): void {
  const config = parseGroupServerArgs(argv);
  if (config === undefined) {
    logLine(`bad arguments ${JSON.stringify(argv)}: this program is started by containerd-shim-skiff-v2 start`);
    process.exit(2);
  }
  serveGroup(config).catch((err: unknown) => {
    logLine(`cannot serve: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}

import 'reflect-metadata';
import { readdirSync } from 'node:fs';
import { FailedPreconditionError } from '../../domain/shared/errors';
import { fsReason, makeDirs } from '../../adapters/shared/helpers/make-dirs';
import { TaskService } from '../../application/shim/task/task-service';
import { GrpcTaskServer } from '../../adapters/shim/inbound/grpc/grpc-server';
import { SocketListener } from '../../adapters/shim/os/socket-listener';
import { taskHandlers } from '../../adapters/shim/inbound/task-rpc/task-handlers';
import { serveTtrpcTaskServer } from '../../adapters/shim/inbound/ttrpc/ttrpc-task-server';
import { ShimConfig } from './shim-config';
import { buildContainer } from '../shared/container';
import { ShimProcessHost } from '../../adapters/shim/outbound/shim-host/shim-process-host';
import { removeRunDir } from '../../adapters/shim/os/run-layout';

/** On SIGTERM/SIGINT live processes get SIGTERM, then SIGKILL after this long. */
export const STOP_GRACE_MS = 2000;

/**
 * How the task service is served: gRPC (`skiff shim serve`), or ttrpc, what
 * containerd 1.6 speaks to its shims (docs/ttrpc.md).
 */
export type ShimTransport = 'grpc' | 'ttrpc';

export interface TaskServer {
  stop(): Promise<void>;
}

/**
 * Runs the shim until Shutdown ends it or a signal stops it, on `listener` when the
 * socket was bound already (`skiff shim serve` binds it first: src/infrastructure/entry/shim-listen.ts).
 * Resolves once the socket accepts connections; the process exits 0 after stopping.
 */
export async function serveShim(
  config: ShimConfig,
  transport: ShimTransport = 'grpc',
  bound?: SocketListener,
): Promise<TaskServer> {
  const listener = bound ?? (await SocketListener.listen({ address: config.address }));
  let host: ShimProcessHost;
  let service: TaskService;
  try {
    try {
      makeDirs(config.stateDir, 0o700);
    } catch (err) {
      throw new FailedPreconditionError(
        `cannot create --state-dir ${config.stateDir}: ${fsReason(err)}`,
        'SHIM.STATE_DIR',
      );
    }
    const container = buildContainer({ shim: { runtime: config.runtime, stateDir: config.stateDir } });
    host = container.get(ShimProcessHost);
    service = container.get(TaskService);
    // The tasks a previous server on this state directory left running (docs/failure-domains.md).
    for (const line of await service.recover()) host.warn(`skiff shim: ${line}`);
  } catch (err) {
    // A shim that cannot serve leaves no socket behind for its caller to dial.
    listener.close();
    throw err;
  }
  const server: TaskServer =
    transport === 'ttrpc'
      ? serveTtrpcTaskServer(listener, taskHandlers(service))
      : GrpcTaskServer.serve(listener, service);

  let stopping = false;
  const stop = async (graceMs: number) => {
    if (stopping) return;
    stopping = true;
    await service.stopEverything(graceMs).catch(() => undefined);
    await server.stop();
    if (config.runDir !== undefined) removeRunDir(config.runDir);
    process.exit(0);
  };
  host.whenExitRequested(() => void stop(0));
  process.on('SIGUSR2', () => process.stderr.write(`${usageLine(service.taskCount)}\n`));
  process.on('SIGTERM', () => void stop(STOP_GRACE_MS));
  process.on('SIGINT', () => void stop(STOP_GRACE_MS));
  if (config.lifeline === true) onLifelineEnd(() => void stop(STOP_GRACE_MS));
  return server;
}

/**
 * `skiff run --rm` holds the write end of this shim's stdin and never writes: end-of-file
 * (or an error) means it is gone, even killed with SIGKILL, and nobody is left to end
 * the task, so the shim does it as on SIGTERM.
 */
function onLifelineEnd(end: () => void): void {
  process.stdin.once('end', end);
  process.stdin.once('error', end);
  process.stdin.resume();
}

/**
 * What `kill -USR2 <shim>` prints on stderr: tasks, open descriptors, live heap and
 * resident memory (after a full GC when Node runs with --expose-gc), for operators
 * and for the reliability suite's leak checks.
 */
function usageLine(tasks: number): string {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  const fds = readdirSync('/proc/self/fd').length;
  return `skiff shim usage: pid=${process.pid} tasks=${tasks} fds=${fds} heap_used=${heapUsed} rss=${rss} gc=${gc === undefined ? 'no' : 'yes'}`;
}

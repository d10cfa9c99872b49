import 'reflect-metadata';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { FailedPreconditionError } from '../../domain/shared/errors';
import { fsReason, makeDirs } from '../../adapters/shared/helpers/make-dirs';
import { ensurePrivateDir } from '../../adapters/shared/helpers/private-dir';
import { socketPath } from '../../adapters/shim/inbound/grpc/unix-socket';
import { PROCESS_RUNTIME, ProcessRuntime } from '../../application/shim/ports/process-runtime.port';
import { TaskService } from '../../application/shim/task/task-service';
import { GrpcTaskServer } from '../../adapters/shim/inbound/grpc/grpc-server';
import { runtimeDir, ShimConfig } from './shim-config';
import { buildContainer } from '../shared/container';
import { skiffVersion } from '../../adapters/shared/helpers/package-info';
import { ShimProcessHost } from '../../adapters/shim/outbound/shim-host/shim-process-host';
import { removeRunDir } from '../../adapters/shim/helpers/run-layout';

/** On SIGTERM/SIGINT live processes get SIGTERM, then SIGKILL after this long. */
export const STOP_GRACE_MS = 2000;

/**
 * Runs the shim until Shutdown ends it or a signal stops it. Resolves once the
 * socket accepts connections; the process exits 0 after stopping.
 */
export async function serveShim(config: ShimConfig): Promise<GrpcTaskServer> {
  // skiff's own directory (the default socket's and state's) must be nobody else's (private-dir.ts).
  const shared = runtimeDir();
  const inShared = (path: string) => path === shared || path.startsWith(`${shared}/`);
  if (inShared(dirname(socketPath(config.address))) || inShared(config.stateDir)) ensurePrivateDir(shared);
  try {
    makeDirs(config.stateDir, 0o700);
  } catch (err) {
    throw new FailedPreconditionError(
      `cannot create --state-dir ${config.stateDir}: ${fsReason(err)}`,
      'SHIM.STATE_DIR',
    );
  }
  const host = new ShimProcessHost(skiffVersion());
  const container = buildContainer({ shim: { runtime: config.runtime, stateDir: config.stateDir, host } });
  const service = container.get(TaskService);
  const runtime = container.get<ProcessRuntime>(PROCESS_RUNTIME);
  const server = await GrpcTaskServer.listen(config.address, service);

  let stopping = false;
  const stop = async (graceMs: number) => {
    if (stopping) return;
    stopping = true;
    await service.stopEverything(graceMs).catch(() => undefined);
    await server.stop();
    await runtime.shutdown().catch(() => undefined);
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

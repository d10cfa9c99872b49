import { logVerbosity, Server, ServerCredentials, setLogVerbosity } from '@grpc/grpc-js';
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { FailedPreconditionError } from '../../../../domain/shared/errors';
import { TaskService } from '../../../../application/shim/task/task-service';
import { task } from '../../../../infrastructure/proto/generated/task/v2/shim';
import { tolerantDefinition } from './malformed-request';
import { taskGrpcHandlers } from './task-grpc-service';
import { prepareSocketPath, socketPath } from './unix-socket';

const STOP_GRACE_MS = 1000;
/**
 * Channelz (gRPC's introspection service) is never served here, yet its per-call
 * bookkeeping costs ~0.1 ms a call: off.
 */
const SERVER_OPTIONS = { 'grpc.enable_channelz': 0 };

/** Serves task.v2.Task on a unix socket (mode 0600) and removes the socket when stopped. */
export class GrpcTaskServer {
  private constructor(
    private readonly server: Server,
    readonly path: string,
  ) {}

  static async listen(address: string, service: TaskService): Promise<GrpcTaskServer> {
    // grpc-js logs its failures on stderr itself; the shim reports each one once, in its own words.
    if (process.env.GRPC_VERBOSITY === undefined) setLogVerbosity(logVerbosity.NONE);
    const path = socketPath(address);
    await prepareSocketPath(path);
    const server = new Server(SERVER_OPTIONS);
    server.addService(tolerantDefinition(task.v2.UnimplementedTaskService.definition), taskGrpcHandlers(service));
    // The socket is created with mode 0600 from the start: no moment with a wider mode.
    const previousUmask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.bindAsync(`unix:${path}`, ServerCredentials.createInsecure(), (err) =>
          err ? reject(bindFailed(path, err)) : resolve(),
        );
      });
    } finally {
      process.umask(previousUmask);
    }
    // chmod follows a link: only the socket just bound is tightened, and only if the
    // umask was not honoured (it is on Linux, so normally nothing is changed at all).
    const bound = lstatSync(path);
    if (!bound.isSocket()) {
      server.forceShutdown();
      throw new FailedPreconditionError(
        `${path} was replaced while the shim bound it; remove it or choose another --address`,
        'SOCKET.NOT_SOCKET',
      );
    }
    if ((bound.mode & 0o777) !== 0o600) chmodSync(path, 0o600);
    return new GrpcTaskServer(server, path);
  }

  /** Lets calls in flight finish (briefly), then closes every connection and the socket. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, STOP_GRACE_MS);
      this.server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
    rmSync(this.path, { force: true });
  }
}

/** grpc-js says "No address added out of total 1 resolved errors: [listen EACCES: permission denied /x]". */
export function bindFailed(path: string, err: Error): FailedPreconditionError {
  const cause = /listen (\w+): ([^/\]]+)/.exec(err.message);
  const reason = cause === null ? 'the socket could not be bound' : `${cause[2].trim()} (${cause[1]})`;
  return new FailedPreconditionError(`cannot listen on ${path}: ${reason}; choose another --address`, 'SOCKET.BIND');
}

import { Server, ServerCredentials } from '@grpc/grpc-js';
import { rmSync } from 'node:fs';
import { TaskService } from '../../../../application/shim/task/task-service';
import { taskHandlers } from '../task-rpc/task-handlers';
import { checkBoundSocket, prepareSocketPath, socketPath } from '../task-rpc/unix-socket';
import { taskBytesDefinition, taskGrpcHandlers } from './task-grpc-service';

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
    const path = socketPath(address);
    await prepareSocketPath(path);
    const server = new Server(SERVER_OPTIONS);
    server.addService(taskBytesDefinition(), taskGrpcHandlers(taskHandlers(service)));
    // The socket is created with mode 0600 from the start: no moment with a wider mode.
    const previousUmask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.bindAsync(`unix:${path}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve()));
      });
    } finally {
      process.umask(previousUmask);
    }
    try {
      checkBoundSocket(path);
    } catch (err) {
      server.forceShutdown();
      throw err;
    }
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

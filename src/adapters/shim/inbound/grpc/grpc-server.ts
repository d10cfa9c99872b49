import { Server, ServerCredentials } from '@grpc/grpc-js';
import { TaskService } from '../../../../application/shim/task/task-service';
import { ListenTarget, SocketListener } from '../task-rpc/socket-listener';
import { taskHandlers } from '../task-rpc/task-handlers';
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
    private readonly listener: SocketListener,
  ) {}

  get path(): string | undefined {
    return this.listener.path;
  }

  static async listen(target: ListenTarget, service: TaskService): Promise<GrpcTaskServer> {
    return GrpcTaskServer.serve(await SocketListener.listen(target), service);
  }

  /**
   * Serves on a socket that already listens, starting with the connections waiting in
   * it: grpc-js takes each accepted connection as it is (its connection injector).
   */
  static serve(listener: SocketListener, service: TaskService): GrpcTaskServer {
    const server = new Server(SERVER_OPTIONS);
    server.addService(taskBytesDefinition(), taskGrpcHandlers(taskHandlers(service)));
    const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
    listener.accept((socket) => injector.injectConnection(socket));
    return new GrpcTaskServer(server, listener);
  }

  /** Lets calls in flight finish (briefly), then closes every connection and the socket. */
  async stop(): Promise<void> {
    this.listener.close();
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
  }
}

import { ContainerModule } from 'inversify';
import { TASK_CLIENT_FACTORY } from '../../application/shim/ports/task-client.port';
import { GrpcTaskClientFactory } from '../../adapters/shim/outbound/task-client/grpc-task-client';

/** The client of a running shim. */
export function taskClientModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TASK_CLIENT_FACTORY).to(GrpcTaskClientFactory);
  });
}

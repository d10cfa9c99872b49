import { ContainerModule } from 'inversify';
import { RUN_DIRECTORY } from '../../application/shim/ports/run-directory.port';
import { TASK_CLIENT_FACTORY } from '../../application/shim/ports/task-client.port';
import { ListRuns } from '../../application/shim/run/list-runs.use-case';
import { FsRunDirectory } from '../../adapters/shim/outbound/run-directory/fs-run-directory';
import { GrpcTaskClientFactory } from '../../adapters/shim/outbound/task-client/grpc-task-client';
import { runsDir } from './shim-config';

/** The client of a running shim, and where the runs of `skiff run` are found. */
export function taskClientModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TASK_CLIENT_FACTORY).to(GrpcTaskClientFactory);
    bind(RUN_DIRECTORY).toConstantValue(new FsRunDirectory(runsDir()));
    bind(ListRuns).toSelf();
  });
}

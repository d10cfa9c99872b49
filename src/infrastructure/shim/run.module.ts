import { ContainerModule } from 'inversify';
import { BUNDLE_WRITER } from '../../application/shim/ports/bundle-writer.port';
import { CONSOLE } from '../../application/shim/ports/console.port';
import { SHIM_LAUNCHER } from '../../application/shim/ports/shim-launcher.port';
import { RunBundle } from '../../application/shim/run/run-bundle.use-case';
import { RunDetached } from '../../application/shim/run/run-detached.use-case';
import { FsBundleWriter } from '../../adapters/shim/outbound/bundle-writer/fs-bundle-writer';
import { FifoConsoleFactory } from '../../adapters/shim/outbound/console/fifo-console';
import { ProcessShimLauncher } from '../../adapters/shim/outbound/shim-launcher/process-shim-launcher';
import { runsDir } from './shim-config';

/** `skiff run`: the run's shim in the background and the user's terminal (with the task client module). */
export function runModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(SHIM_LAUNCHER).toConstantValue(new ProcessShimLauncher(runsDir()));
    bind(BUNDLE_WRITER).to(FsBundleWriter);
    bind(CONSOLE).to(FifoConsoleFactory);
    bind(RunBundle).toSelf();
    bind(RunDetached).toSelf();
  });
}

import { ContainerModule } from 'inversify';
import { CONSOLE } from '../../application/shim/ports/console.port';
import { SHIM_LAUNCHER } from '../../application/shim/ports/shim-launcher.port';
import { RunBundle } from '../../application/shim/run/run-bundle.use-case';
import { FifoConsoleFactory } from '../../adapters/shim/outbound/console/fifo-console';
import { ProcessShimLauncher } from '../../adapters/shim/outbound/shim-launcher/process-shim-launcher';

/** `skiff run`: a background shim and the user's terminal (with the task client module). */
export function runModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(SHIM_LAUNCHER).to(ProcessShimLauncher);
    bind(CONSOLE).to(FifoConsoleFactory);
    bind(RunBundle).toSelf();
  });
}

import { ContainerModule } from 'inversify';
import { CLOCK } from '../../src/application/shared/ports/clock.port';
import { PROCESS_RUNTIME } from '../../src/application/shim/ports/process-runtime.port';
import { TaskService } from '../../src/application/shim/task/task-service';
import { buildContainer } from '../../src/infrastructure/shared/container';
import { FakeProcessRuntime } from '../fakes/fake-process-runtime';
import { FakeShimHost } from '../fakes/fake-shim-host';
import { FixedClock } from '../fakes/fixed-clock';

/** The real composition root with the runtime and clock replaced by fakes. */
export function shimWithFakes() {
  const runtime = new FakeProcessRuntime();
  const clock = new FixedClock();
  const host = new FakeShimHost();
  const fakes = new ContainerModule(({ rebindSync }) => {
    rebindSync(PROCESS_RUNTIME).toConstantValue(runtime);
    rebindSync(CLOCK).toConstantValue(clock);
  });
  const container = buildContainer({ shim: { runtime: 'native', stateDir: '/nonexistent', host } }, fakes);
  return { service: container.get(TaskService), runtime, clock, host };
}

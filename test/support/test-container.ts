import { ContainerModule } from 'inversify';
import { CLOCK } from '../../src/application/shared/ports/clock.port';
import { EVENTS } from '../../src/application/shim/ports/events.port';
import { SHIM_HOST } from '../../src/application/shim/ports/shim-host.port';
import { PROCESS_RUNTIME } from '../../src/application/shim/ports/process-runtime.port';
import { TASK_JOURNAL } from '../../src/application/shim/ports/task-journal.port';
import { TaskService } from '../../src/application/shim/task/task-service';
import { buildContainer } from '../../src/infrastructure/shared/container';
import { FakeProcessRuntime } from '../../src/adapters/fakes/shim/fake-process-runtime';
import { FakeClock } from '../../src/adapters/fakes/shared/fake-clock';
import { FakeShimHost } from '../../src/adapters/fakes/shim/fake-shim-host';
import { InMemoryTaskJournal } from '../../src/adapters/fakes/shim/in-memory-task-journal';
import { RecordingEvents } from '../../src/adapters/fakes/shim/recording-events';

/** The real composition root with the runtime, clock, events and journal replaced by fakes. */
export function shimWithFakes(journal = new InMemoryTaskJournal(), runtime = new FakeProcessRuntime()) {
  const clock = new FakeClock();
  const host = new FakeShimHost();
  const events = new RecordingEvents();
  const fakes = new ContainerModule(({ rebindSync }) => {
    rebindSync(PROCESS_RUNTIME).toConstantValue(runtime);
    rebindSync(CLOCK).toConstantValue(clock);
    rebindSync(EVENTS).toConstantValue(events);
    rebindSync(TASK_JOURNAL).toConstantValue(journal);
    rebindSync(SHIM_HOST).toConstantValue(host);
  });
  const container = buildContainer({ shim: { runtime: 'native', stateDir: '/nonexistent' } }, fakes);
  return { service: container.get(TaskService), runtime, clock, host, events, journal };
}

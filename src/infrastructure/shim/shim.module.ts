import { join } from 'node:path';
import { ContainerModule } from 'inversify';
import { CLOCK } from '../../application/shared/ports/clock.port';
import { PROCESS_RUNTIME, ProcessRuntime } from '../../application/shim/ports/process-runtime.port';
import { EVENTS, Events } from '../../application/shim/ports/events.port';
import { SHIM_HOST, ShimHost } from '../../application/shim/ports/shim-host.port';
import { TASK_JOURNAL, TaskJournal } from '../../application/shim/ports/task-journal.port';
import { TaskService } from '../../application/shim/task/task-service';
import { FsTaskJournal } from '../../adapters/shim/outbound/task-journal/fs-task-journal';
import { NoTaskJournal } from '../../adapters/shim/outbound/task-journal/no-task-journal';
import { SystemClock } from '../../adapters/shared/outbound/clock/system-clock';
import { DiscardedEvents } from '../../adapters/shim/outbound/events/discarded-events';
import { NativeRuntime } from '../../adapters/shim/outbound/process-runtime/native/native-runtime';
import { RuntimeName } from './shim-config';

export interface ShimModuleConfig {
  readonly runtime: RuntimeName;
  readonly stateDir: string;
  readonly host: ShimHost;
  /** Where task events go: containerd's events service for the containerd shim; nowhere by default. */
  readonly events?: Events;
}

function makeRuntime(config: ShimModuleConfig): ProcessRuntime {
  switch (config.runtime) {
    case 'native':
      return new NativeRuntime();
    case 'runc': {
      // Loaded only for runc, so the native shim's start-up never evaluates it.
      const { RuncRuntime } =
        require('../../adapters/shim/outbound/process-runtime/runc/runc-runtime') as typeof import('../../adapters/shim/outbound/process-runtime/runc/runc-runtime');
      return new RuncRuntime(config.stateDir);
    }
  }
}

/** runc tasks are recorded beside their files, `<state>/tasks/<id>/` (runc-runtime.ts); native ones are not. */
function makeJournal(config: ShimModuleConfig): TaskJournal {
  return config.runtime === 'runc' ? new FsTaskJournal(join(config.stateDir, 'tasks')) : new NoTaskJournal();
}

/** The task service and the ports it needs. */
export function shimModule(config: ShimModuleConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(PROCESS_RUNTIME).toDynamicValue(() => makeRuntime(config));
    bind(CLOCK).to(SystemClock);
    bind(SHIM_HOST).toConstantValue(config.host);
    bind(EVENTS).toConstantValue(config.events ?? new DiscardedEvents());
    bind(TASK_JOURNAL).toDynamicValue(() => makeJournal(config));
    bind(TaskService).toSelf();
  });
}

import { ContainerModule } from 'inversify';
import { CLOCK } from '../../application/shared/ports/clock.port';
import { PROCESS_RUNTIME, ProcessRuntime } from '../../application/shim/ports/process-runtime.port';
import { EVENTS, Events } from '../../application/shim/ports/events.port';
import { SHIM_HOST, ShimHost } from '../../application/shim/ports/shim-host.port';
import { TASK_JOURNAL, TaskJournal } from '../../application/shim/ports/task-journal.port';
import { TaskService } from '../../application/shim/task/task-service';
import { NoTaskJournal } from '../../adapters/shim/outbound/task-journal/no-task-journal';
import { SystemClock } from '../../adapters/shared/outbound/clock/system-clock';
import { DiscardedEvents } from '../../adapters/shim/outbound/events/discarded-events';
import { NativeRuntime } from '../../adapters/shim/outbound/process-runtime/native/native-runtime';
import { RuntimeName, runtimeEntry } from './runtimes';
import type { PodKeepers } from '../../adapters/shim/outbound/keeper/pod-keepers';

export interface ShimModuleConfig {
  readonly runtime: RuntimeName;
  readonly stateDir: string;
  readonly host: ShimHost;
  /** Where task events go: containerd's events service for the containerd shim; nowhere by default. */
  readonly events?: Events;
  /** containerd's serving process behind pod keepers (the default): the keepers that launch the containers' processes. */
  readonly keepers?: PodKeepers;
}

/** The registry's entry made real: host processes, or OCI containers through the entry's binary. */
function makeRuntime(config: ShimModuleConfig): ProcessRuntime {
  const entry = runtimeEntry(config.runtime);
  if (entry.kind === 'native') return new NativeRuntime();
  // Loaded only for OCI containers, so the native shim's start-up never evaluates it.
  const { RuncRuntime } =
    require('../../adapters/shim/outbound/process-runtime/runc/runc-runtime') as typeof import('../../adapters/shim/outbound/process-runtime/runc/runc-runtime');
  return new RuncRuntime(config.stateDir, { name: config.runtime, binary: entry.binary }, config.keepers);
}

/** OCI containers are recorded beside their files, `<state>/tasks/<id>/` (docs/on-disk-layout.md); host processes are not. */
function makeJournal(config: ShimModuleConfig): TaskJournal {
  if (runtimeEntry(config.runtime).kind === 'native') return new NoTaskJournal();
  const { FsTaskJournal } =
    require('../../adapters/shim/outbound/task-journal/fs-task-journal') as typeof import('../../adapters/shim/outbound/task-journal/fs-task-journal');
  return FsTaskJournal.inStateDir(config.stateDir);
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

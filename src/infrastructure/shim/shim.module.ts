import { ContainerModule, ResolutionContext, ServiceIdentifier } from 'inversify';
import { CLOCK } from '../../application/shared/ports/clock.port';
import { PROCESS_RUNTIME, ProcessRuntime } from '../../application/shim/ports/process-runtime.port';
import { EVENTS } from '../../application/shim/ports/events.port';
import { SHIM_HOST } from '../../application/shim/ports/shim-host.port';
import { TASK_JOURNAL, TaskJournal } from '../../application/shim/ports/task-journal.port';
import { TaskService } from '../../application/shim/task/task-service';
import { NoTaskJournal } from '../../adapters/shim/outbound/task-journal/no-task-journal';
import { SystemClock } from '../../adapters/shared/outbound/clock/system-clock';
import { skiffVersion } from '../../adapters/shared/helpers/package-info';
import { DiscardedEvents } from '../../adapters/shim/outbound/events/discarded-events';
import { NativeRuntime } from '../../adapters/shim/outbound/process-runtime/native/native-runtime';
import { ShimProcessHost } from '../../adapters/shim/outbound/shim-host/shim-process-host';
import { ContainerdLog } from '../../adapters/shim/os/containerd-log';
import { nativeAddon } from '../../adapters/shim/os/native-addon';
import { bundlesDir } from '../../adapters/shim/outbound/process-runtime/task-layout';
import { PodKeepers } from '../../adapters/shim/outbound/keeper/pod-keepers';
import type * as Forwarded from '../../adapters/shim/outbound/events/forwarded-events';
import { RuntimeName, runtimeEntry } from './runtimes';
import { SANDBOX_PROCESSES } from '../../application/shim/ports/sandbox-processes.port';
import { SANDBOX_PLATFORM, SandboxService } from '../../application/shim/sandbox/sandbox-service';
import { KeptSandboxes } from '../../adapters/shim/outbound/sandbox/kept-sandboxes';
import { BundleSandboxJournal } from '../../adapters/shim/outbound/sandbox/bundle-sandbox-journal';
import { SANDBOX_JOURNAL } from '../../application/shim/ports/sandbox-journal.port';
import { SANDBOX_FILES } from '../../application/shim/ports/sandbox-files.port';
import { POD_SANDBOXES } from '../../application/shim/ports/pod-sandboxes.port';
import { CriSandboxFiles } from '../../adapters/shim/outbound/sandbox/cri-sandbox-files';

/** containerd's serving process (entry/containerd.ts, docs/containerd.md): what it is given by `start`. */
export interface ContainerdServing {
  readonly namespace: string;
  /** containerd's ttrpc address ($TTRPC_ADDRESS), where task events are forwarded. */
  readonly ttrpcAddress: string;
  /** The group socket, which `start` wrote into each bundle's `address` as unix://<socket>. */
  readonly socket: string;
  /** Behind pod keepers (the default; SKIFF_KEEPER=0 serves without them: keepers-wanted.ts). */
  readonly keepers: boolean;
}

/**
 * What containerd's serving process drives beside the task service, bound only there (symbols,
 * not the classes, so that the container never builds one of its own where they are not bound):
 * its log, the events forwarded to containerd, which it flushes as it leaves (EVENTS is bound
 * to them), and the pod keepers, only behind them.
 */
export const CONTAINERD_LOG: ServiceIdentifier<ContainerdLog> = Symbol('ContainerdLog');
export const FORWARDED_EVENTS: ServiceIdentifier<Forwarded.ForwardedEvents> = Symbol('ForwardedEvents');
export const POD_KEEPERS: ServiceIdentifier<PodKeepers> = Symbol('PodKeepers');

export interface ShimModuleConfig {
  readonly runtime: RuntimeName;
  readonly stateDir: string;
  /** containerd's serving process; without it, `skiff shim serve` (its events go nowhere, its log is stderr). */
  readonly containerd?: ContainerdServing;
}

/** Node's process.arch in GOARCH's words, as containerd's platforms name them. */
const GO_ARCH: Partial<Record<string, string>> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386' };

/** The registry's entry made real: host processes, or OCI containers through the entry's binary. */
function makeRuntime(config: ShimModuleConfig, keepers: PodKeepers | undefined): ProcessRuntime {
  const entry = runtimeEntry(config.runtime);
  if (entry.kind === 'native') return new NativeRuntime();
  // Loaded only for OCI containers, so the native shim's start-up never evaluates it.
  const { RuncRuntime } =
    require('../../adapters/shim/outbound/process-runtime/runc/runc-runtime') as typeof import('../../adapters/shim/outbound/process-runtime/runc/runc-runtime');
  return new RuncRuntime(config.stateDir, { name: config.runtime, binary: entry.binary }, keepers);
}

/** OCI containers are recorded beside their files, `<state>/tasks/<id>/` (docs/on-disk-layout.md); host processes are not. */
function makeJournal(config: ShimModuleConfig): TaskJournal {
  if (runtimeEntry(config.runtime).kind === 'native') return new NoTaskJournal();
  const { FsTaskJournal } =
    require('../../adapters/shim/outbound/task-journal/fs-task-journal') as typeof import('../../adapters/shim/outbound/task-journal/fs-task-journal');
  return FsTaskJournal.inStateDir(config.stateDir);
}

/**
 * The task service and the ports it needs, and for containerd's serving process what serves
 * it beside them: its log (ContainerdLog, through the tasks' log FIFOs), the events forwarded
 * to containerd (ForwardedEvents, which the entry flushes as it leaves), the pod keepers
 * (PodKeepers, bound only behind them) and this process as the service's host
 * (ShimProcessHost). The entry resolves those it drives (entry/containerd.ts).
 */
export function shimModule(config: ShimModuleConfig): ContainerModule {
  const { containerd } = config;
  return new ContainerModule(({ bind }) => {
    const keepers = ({ get }: ResolutionContext) => (containerd?.keepers === true ? get(POD_KEEPERS) : undefined);
    bind(PROCESS_RUNTIME).toDynamicValue((context) => makeRuntime(config, keepers(context)));
    bind(CLOCK).to(SystemClock);
    bind(TASK_JOURNAL).toDynamicValue(() => makeJournal(config));
    bind(TaskService).toSelf();
    bind(SHIM_HOST).toService(ShimProcessHost);
    if (containerd === undefined) {
      bind(ShimProcessHost).toDynamicValue(() => new ShimProcessHost(skiffVersion()));
      bind(EVENTS).toConstantValue(new DiscardedEvents());
      return;
    }
    // Every line of the serving process goes to containerd's log, through a task's log FIFO.
    const logged =
      ({ get }: ResolutionContext) =>
      (line: string) =>
        get(CONTAINERD_LOG).line(`skiff[${process.pid}]: ${line}\n`);
    bind(CONTAINERD_LOG).toConstantValue(
      new ContainerdLog(bundlesDir(config.stateDir, containerd.namespace), `unix://${containerd.socket}`),
    );
    bind(ShimProcessHost).toDynamicValue((context) => new ShimProcessHost(skiffVersion(), logged(context)));
    // Loaded only by the serving process: `skiff shim serve` forwards no events.
    bind(FORWARDED_EVENTS).toDynamicValue(
      (context) =>
        new (require('../../adapters/shim/outbound/events/forwarded-events') as typeof Forwarded).ForwardedEvents(
          containerd.ttrpcAddress,
          containerd.namespace,
          () => new Date(),
          logged(context),
        ),
    );
    bind(EVENTS).toService(FORWARDED_EVENTS);
    // Behind pod keepers the containers' processes are the keepers' children (docs/keeper-protocol.md);
    // their control messages go straight to the addon's sendmsg (a Create's `L` crosses no wrapper).
    if (!containerd.keepers) return;
    bind(POD_KEEPERS).toDynamicValue((context) => new PodKeepers(nativeAddon().sendWithFds, logged(context)));
    // The Sandbox API (docs/sandbox-api.md): a pod's namespaces are held by its keeper's child.
    bind(SANDBOX_PROCESSES).toDynamicValue(({ get }) => new KeptSandboxes(get(POD_KEEPERS)));
    bind(SANDBOX_PLATFORM).toConstantValue({ os: 'linux', architecture: GO_ARCH[process.arch] ?? process.arch });
    bind(SANDBOX_JOURNAL).toConstantValue(BundleSandboxJournal.ofStateDir(config.stateDir, containerd.namespace));
    bind(SANDBOX_FILES).toConstantValue(CriSandboxFiles.ofStateDir(config.stateDir));
    bind(SandboxService).toSelf();
    bind(POD_SANDBOXES).toService(SandboxService);
  });
}

import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FailedPreconditionError, InvalidArgumentError } from '../../../../../domain/shared/errors';
import { idMappingProblem } from '../../../../../domain/shim/oci-spec';
import {
  AdoptSpec,
  CreateSpec,
  LiveStatus,
  ProcessRuntime,
  TaskHandle,
  TaskWatch,
} from '../../../../../application/shim/ports/process-runtime.port';
import { Reaper } from '../../../os/reaper';
import { BundleConfig, readBundleConfig } from '../bundle';
import { ContainerCgroup } from './container-cgroup';
import { ContainerProcess } from './container-process';
import { StdioOwner } from '../stdio/direct-stdio';
import { CriuCheck } from './criu';
import { RootfsMounts } from './rootfs-mounts';
import { findRuntimeBinary, OciRuntimeBinary, RUNC, RuncCli } from './runc-cli';
import { RuncContainer } from './runc-container';
import {
  INIT_PID_FILE,
  OCI_RUNTIME_FILE,
  readOciRuntimeRecord,
  runtimeRoot,
  TASK_RECORD_FILE,
  taskDir as taskDirOf,
  writeOciRuntimeRecord,
} from '../task-layout';
import { readRuncOptions } from './runc-options';
import { watchOom } from './oom-watch';
import { isSameLiveProcess } from './adopted-exit';
import { RuncTaskHandle } from './runc-task-handle';
import { makeDirs } from '../../../../shared/helpers/make-dirs';
import { PodKeepers, podSocketOfBundle } from '../../keeper/pod-keepers';
import { KeptLauncher } from '../../keeper/kept-launcher';
import { DirectLauncher } from './direct-launcher';
import { Launcher } from './launcher';

/** What a task's runtime options decide: its runc, its stdio's owner, criu's work directory for a restore. */
interface TaskOptions {
  readonly cli: RuncCli;
  readonly ioOwner: StdioOwner | undefined;
  readonly criuWorkPath?: string;
}

/**
 * Real OCI containers through runc or a runc-compatible binary (`--runtime runc`; the
 * registry, src/infrastructure/shim/runtimes.ts, names the binary). The shim becomes a child
 * subreaper at start so that each container's processes, re-parented to it when the binary
 * exits, report their exits here. Needs root and the binary; checkpoints need a working criu.
 */
export class RuncRuntime implements ProcessRuntime {
  readonly name: string;
  private readonly cli: RuncCli;
  /** Processes made here: a task's when no pod keeper serves it, and every `runc restore`'s. */
  private readonly direct: DirectLauncher;
  private readonly criu = new CriuCheck();

  constructor(
    private readonly stateDir: string,
    runtime: OciRuntimeBinary = RUNC,
    /** Behind pod keepers (containerd's default): the keepers that launch the containers' processes (docs/keeper-protocol.md). */
    private readonly keepers?: PodKeepers,
  ) {
    this.name = runtime.name;
    if (process.getuid?.() !== 0) {
      throw new FailedPreconditionError(
        `the ${runtime.name} runtime needs root (${runtime.binary} makes namespaces, cgroups and mounts); run the shim as root or use --runtime native`,
        'RUNC.NOT_ROOT',
      );
    }
    const binary = findRuntimeBinary(runtime);
    this.direct = new DirectLauncher(Reaper.shared());
    const root = runtimeRoot(stateDir, runtime.name);
    makeDirs(root, 0o700);
    this.cli = new RuncCli(binary, root);
  }

  async create(spec: CreateSpec, watch: TaskWatch): Promise<TaskHandle> {
    const subject = `task ${JSON.stringify(spec.id)}`;
    const config = readBundleConfig(spec.id, spec.bundle);
    checkTerminal(config, spec.stdio.terminal, spec.bundle, subject);
    checkIdMappings(config, spec.bundle, subject);
    if (spec.checkpoint !== '') checkCheckpointDir(spec.checkpoint, subject);
    const { cli, ioOwner, criuWorkPath } = this.optionsFor(spec, config, subject);
    const container = this.container(spec, config, cli);
    container.ioOwner = ioOwner;
    makeDirs(container.taskDir, 0o700);
    writeOciRuntimeRecord(container.taskDir, { binary: cli.binary, root: cli.root, bundle: spec.bundle });
    let mounts: RootfsMounts | undefined;
    let init: ContainerProcess | undefined;
    try {
      mounts = await RootfsMounts.mount(spec.rootfs, spec.bundle, subject);
      const configProcess = (config.json.process ?? {}) as Record<string, unknown>;
      // `runc restore` runs from the serving process still (docs/keeper-protocol.md, "As built"): so does its terminal.
      const launcher = spec.checkpoint === '' ? container.launcher : this.direct;
      init = new ContainerProcess(spec.stdio, subject, spec.id, launcher, watch.onExit, {
        beforeExit: container,
        consoleSized: configProcess.consoleSize !== undefined,
        ioOwner,
      });
      if (spec.checkpoint === '') await this.createContainer(container, init);
      if (init.pid > 0) {
        container.cgroup = ContainerCgroup.of(init.pid);
        if (watch.onOom !== undefined) container.oomWatch = watchOom(container.cgroup, watch.onOom);
      }
      return new RuncTaskHandle(container, {
        init,
        mounts,
        configProcess,
        poststartHooks: hasPoststartHooks(config.json),
        restoreFrom: spec.checkpoint,
        criuWorkPath,
        criu: this.criu,
        restorer: this.direct,
      });
    } catch (err) {
      init?.io.release();
      if (init !== undefined && init.pid > 0) await container.remove().catch(() => undefined);
      await mounts?.unmount().catch(() => undefined);
      container.removeFiles();
      throw err;
    }
  }

  /**
   * Takes over a task a previous serving process made (docs/failure-domains.md): the same
   * container, mounts and files; its init watched if it is still the process that was made
   * (same pid and start time), else reported exited. Its exit status can be read only while
   * it is a zombie its new parent has not reaped (adopted-exit.ts).
   */
  async adopt(spec: AdoptSpec, watch: TaskWatch): Promise<TaskHandle> {
    const subject = `task ${JSON.stringify(spec.id)}`;
    const config = readBundleConfig(spec.id, spec.bundle);
    const { cli, ioOwner, criuWorkPath } = this.optionsForAdopted(spec, config, subject);
    const container = this.container(spec, config, cli);
    // Its execs' FIFOs get the owner its options name (its own were given at its Create).
    container.ioOwner = ioOwner;
    const configProcess = (config.json.process ?? {}) as Record<string, unknown>;
    const init = new ContainerProcess(spec.stdio, subject, spec.id, container.launcher, watch.onExit, {
      beforeExit: container,
      consoleSized: configProcess.consoleSize !== undefined,
      adopted: true,
    });
    let observedStatus: LiveStatus | undefined;
    if (spec.init.pid > 0) {
      if (isSameLiveProcess(spec.init.pid, spec.init.startTime)) {
        container.cgroup = ContainerCgroup.of(spec.init.pid);
        if (watch.onOom !== undefined) container.oomWatch = watchOom(container.cgroup, watch.onOom);
        observedStatus = container.liveStatus();
      }
      init.adopt(spec.init);
    }
    return new RuncTaskHandle(container, {
      init,
      mounts: RootfsMounts.adopted(spec.rootfs, spec.bundle),
      configProcess,
      poststartHooks: hasPoststartHooks(config.json),
      // A task restored from a checkpoint whose Start never came restores at Start still.
      restoreFrom: spec.init.pid > 0 ? '' : spec.checkpoint,
      criuWorkPath,
      criu: this.criu,
      restorer: this.direct,
      observedStatus,
    });
  }

  /**
   * What a Create cut short by the death of the serving process left of task `id`
   * (docs/failure-domains.md, "A Create cut short"): its task directory, which has no record,
   * and maybe a created container, and its logger, that the pod keeper holds. Removed as
   * containerd-shim-skiff-v2 `delete` removes a task: the keeper's keys released, `<binary>
   * delete --force` with the binary and root the directory names, the rootfs unmounted, the
   * directory removed. False when there is no such directory.
   */
  async removeLeftover(id: string): Promise<boolean> {
    const dir = taskDirOf(this.stateDir, id);
    if (!existsSync(dir) || existsSync(join(dir, TASK_RECORD_FILE))) return false;
    const made = readOciRuntimeRecord(dir);
    if (made?.bundle !== undefined) {
      const launcher = this.launcherFor(made.bundle);
      const container = new RuncContainer(id, made.bundle, dir, false, new RuncCli(made.binary, made.root), launcher);
      // The keys first: a keeper ends the init and the logger, unreported; then runc's state goes.
      await launcher.release(id, true);
      await container.remove();
      RootfsMounts.unmountAllAt(made.bundle);
    } else if (existsSync(join(dir, OCI_RUNTIME_FILE))) {
      return false; // unreadable, or written before records named the bundle: `delete` reads it
    }
    rmSync(dir, { recursive: true, force: true });
    return true;
  }

  /** The runc a task's options and spec ask for, and the owner its stdio FIFOs get (IoUid, IoGid). */
  private optionsFor(spec: CreateSpec, config: BundleConfig, subject: string): TaskOptions {
    const options = readRuncOptions(spec.options, subject, spec.bundle);
    const systemdCgroup = options.systemdCgroup || hasSystemdCgroupsPath(config.json);
    const cli =
      options.binary === undefined && !systemdCgroup
        ? this.cli
        : new RuncCli(options.binary ?? this.cli.binary, this.cli.root, systemdCgroup);
    const [uid, gid] = [options.ioUid ?? 0, options.ioGid ?? 0];
    return { cli, ioOwner: uid === 0 && gid === 0 ? undefined : { uid, gid }, criuWorkPath: options.criuWorkPath };
  }

  /**
   * A task taken over reads its options again; when they no longer read (a runtime options file
   * edited or removed since its Create), the binary that made the container, from its task dir's
   * record, still serves it, with the cgroup driver its spec implies.
   */
  private optionsForAdopted(spec: AdoptSpec, config: BundleConfig, subject: string): TaskOptions {
    try {
      return this.optionsFor(spec, config, subject);
    } catch (err) {
      const recorded = readOciRuntimeRecord(taskDirOf(this.stateDir, spec.id))?.binary;
      if (!(err instanceof InvalidArgumentError) || recorded === undefined) throw err;
      return { cli: new RuncCli(recorded, this.cli.root, hasSystemdCgroupsPath(config.json)), ioOwner: undefined };
    }
  }

  private container(spec: CreateSpec, config: BundleConfig, cli: RuncCli): RuncContainer {
    const dir = taskDirOf(this.stateDir, spec.id);
    const ownPidNamespace = hasOwnPidNamespace(config.json);
    return new RuncContainer(spec.id, spec.bundle, dir, ownPidNamespace, cli, this.launcherFor(spec.bundle));
  }

  /**
   * The one choice of how a task's processes are launched: by its pod keeper, the one whose socket
   * containerd wrote to the bundle's `address` (`start` writes it), known from the bundle alone at
   * Create and after a restart alike; or, without pod keepers (SKIFF_KEEPER=0, outside containerd)
   * or without an address, by this process.
   */
  private launcherFor(bundle: string): Launcher {
    const pod = this.keepers && podSocketOfBundle(bundle);
    return this.keepers === undefined || pod === undefined ? this.direct : new KeptLauncher(this.keepers, pod);
  }

  /** `runc create` with a pid file: the init exists, blocked until `runc start`, with its final pid. */
  private async createContainer(container: RuncContainer, init: ContainerProcess): Promise<void> {
    const { cli, bundle, id } = container;
    const pidFile = join(container.taskDir, INIT_PID_FILE);
    const args = ['create', '--bundle', bundle, '--pid-file', pidFile];
    await init.launch({ action: 'create', cli, bundle, args, container: id, pidFile, loggerId: id });
  }
}

/**
 * Whether linux.cgroupsPath is systemd's `slice:prefix:name`, which runc reads only with
 * --systemd-cgroup (github.com/opencontainers/runc, docs/systemd.md); a cgroupfs path starts with `/`. containerd's
 * CRI plugin writes that form whenever kubelet's cgroup parent is a systemd slice (kubelet's
 * systemd cgroup driver; getCgroupsPath in containerd's CRI server), and hands a runtime other
 * than runc no SystemdCgroup option, so the spec is where skiff learns the driver, as Kata's
 * agent does.
 */
export function hasSystemdCgroupsPath(json: Readonly<Record<string, unknown>>): boolean {
  const path = (json.linux as { cgroupsPath?: unknown } | undefined)?.cgroupsPath;
  return typeof path === 'string' && !path.startsWith('/') && path.split(':').length === 3;
}

function hasPoststartHooks(json: Readonly<Record<string, unknown>>): boolean {
  const hooks = json.hooks as { poststart?: unknown } | undefined;
  return Array.isArray(hooks?.poststart) && hooks.poststart.length > 0;
}

function hasOwnPidNamespace(json: Readonly<Record<string, unknown>>): boolean {
  const linux = json.linux as { namespaces?: Array<{ type?: string; path?: string }> } | undefined;
  return (linux?.namespaces ?? []).some((ns) => ns.type === 'pid' && (ns.path ?? '') === '');
}

/** runc takes the terminal from config.json: a request that disagrees would get runc's obscure error. */
function checkTerminal(config: BundleConfig, terminal: boolean, bundle: string, subject: string): void {
  if (config.spec.process.terminal === terminal) return;
  throw new InvalidArgumentError(
    `${subject}: the request has terminal=${terminal} but ${join(bundle, 'config.json')} has process.terminal=${config.spec.process.terminal}; ` +
      'runc takes the terminal from config.json, so make the two agree',
    'RUNC.TERMINAL_MISMATCH',
  );
}

/**
 * A mapping the kernel would refuse, named before runc runs: runc says only "can't get final child's PID from pipe"
 * (docs/runtimes.md, "User namespaces").
 */
function checkIdMappings(config: BundleConfig, bundle: string, subject: string): void {
  const problem = idMappingProblem(config.json.linux);
  if (problem === undefined) return;
  throw new InvalidArgumentError(
    `${subject}: ${join(bundle, 'config.json')}: ${problem}, which the kernel refuses; fix the mapping (ctr: --uidmap/--gidmap container:host:size)`,
    'RUNC.ID_MAPPING',
  );
}

function checkCheckpointDir(path: string, subject: string): void {
  let ok = false;
  try {
    ok = path.startsWith('/') && statSync(path).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok)
    throw new InvalidArgumentError(
      `${subject}: checkpoint ${JSON.stringify(path)} is not an existing absolute directory`,
      'RUNC.CHECKPOINT_DIR',
    );
}

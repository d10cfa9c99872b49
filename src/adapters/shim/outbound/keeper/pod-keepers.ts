import { Socket } from 'node:net';
import { FailedPreconditionError, NetworkError } from '../../../../domain/shared/errors';
import { ProcessExit } from '../../../../domain/shim/exit-status';
import { readBundleAddress } from '../../os/containerd-log';
import { KeeperControl, KeptExit, Launched, LaunchRequest, SendWithFds, StartOutcome } from './keeper-control';

/** containerd's reaper status for an exit nobody could read (adopted-exit.ts says why 255). */
const UNKNOWN_EXIT: ProcessExit = { code: 255, signal: null };
/** A Create may come on a relay a moment before its keeper's control connection is admitted. */
const CONTROL_WAIT_MS = 2000;
/** After a hello that does not list an adopted key, its exit (sent right after the hello) gets this long. */
const EXIT_AFTER_HELLO_MS = 1000;

/**
 * Where a kept process's exit goes (its ContainerProcess): told once; the exit is acked to the
 * keeper when the returned promise resolves.
 */
export interface ExitReport {
  report(exit: ProcessExit): Promise<void>;
}

interface Watcher {
  readonly pod: string;
  readonly exits: ExitReport;
  /** Made by a previous serving process: its key may be one the keeper no longer holds. */
  readonly adopted: boolean;
}

/**
 * waitpid's raw status as a ProcessExit (WIFSIGNALED: the low 7 bits; else WEXITSTATUS), with
 * the time of the reap when the keeper told it (`E`'s seconds and nanoseconds).
 */
/**
 * The key of a process's `binary://` logger: the process's key and `@log` (containerd's
 * identifier rule has no `@`, so no task or exec key is one).
 */
export function loggerKey(key: string): string {
  return `${key}@log`;
}

export function exitOfWaitStatus(status: number, at?: KeptExit['at']): ProcessExit {
  const signal = status & 0x7f;
  const exit = signal === 0 ? { code: (status >> 8) & 0xff, signal: null } : { code: null, signal };
  if (at === undefined || !(at.seconds > 0)) return exit;
  return { ...exit, exitedAt: new Date(at.seconds * 1000 + Math.floor(at.nanoseconds / 1e6)) };
}

/** The pod socket a bundle's task is served through: containerd's `address` file, which `start` wrote. */
export function podSocketOfBundle(bundle: string): string | undefined {
  try {
    const address = readBundleAddress(bundle)?.trim() ?? '';
    return address.startsWith('unix://') ? address.slice('unix://'.length) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The pod keepers' control connections of one serving process (docs/keeper-protocol.md, "The
 * control connection"), by pod socket (the preamble's `keeper=`): launches go to a task's
 * keeper, and each kept exit goes to whoever watches its key, then is acked. An exit nobody
 * watches was recorded already (a resent `E`, or a task deleted meanwhile): it is acked at once.
 */
export class PodKeepers {
  private readonly controls = new Map<string, KeeperControl>();
  private readonly arrivals = new Set<() => void>();
  private readonly watchers = new Map<string, Watcher>();
  /** Exits told to their watchers, not acked yet. */
  private readonly reporting = new Set<Promise<void>>();
  /** Keys to release on each pod's next control connection, before anything else is sent on it. */
  private readonly releasesOnConnect = new Map<string, Set<string>>();

  constructor(
    private readonly sendWithFds: SendWithFds,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** A keeper's control connection, past its preamble (connection-admission.ts). */
  accept(socket: Socket, pod: string | undefined, first: Buffer): void {
    if (pod === undefined || pod === '') return void socket.destroy();
    const control = new KeeperControl(socket, first, this.sendWithFds);
    const before = this.controls.get(pod);
    this.controls.set(pod, control);
    before?.close();
    control.on('hello', (held) => this.hello(pod, new Set(held.map((h) => h.key))));
    control.on('exit', (exit) => this.exit(pod, exit));
    control.on('close', () => {
      if (this.controls.get(pod) === control) this.controls.delete(pod);
    });
    const releases = this.releasesOnConnect.get(pod);
    this.releasesOnConnect.delete(pod);
    for (const key of releases ?? []) this.tell(pod, (c) => c.release(key));
    for (const arrived of [...this.arrivals]) arrived();
  }

  /** Runs a launch through the pod's keeper; `exits` is told the exit of what it keeps. */
  async launch(pod: string, request: LaunchRequest, exits: ExitReport): Promise<Launched> {
    const control = await this.control(pod);
    this.watchers.set(request.key, { pod, exits, adopted: false });
    try {
      const launched = await control.launch(request);
      if (launched.pid <= 0) this.watchers.delete(request.key);
      return launched;
    } catch (err) {
      this.watchers.delete(request.key);
      throw new NetworkError(
        `the pod keeper of ${pod} was lost while it launched ${request.key} (${err instanceof Error ? err.message : String(err)}); containerd cleans the pod's tasks up, try again`,
        'KEEPER.LOST',
      );
    }
  }

  /** A process a previous serving process launched through `pod`'s keeper: its exit comes as that keeper's `E`. */
  watchAdopted(pod: string, key: string, exits: ExitReport): void {
    this.watchers.set(key, { pod, exits, adopted: true });
  }

  /** `R` on the terminal the keeper holds for `key`; its error text becomes one FAILED_PRECONDITION naming `subject`. */
  async resize(pod: string, key: string, width: number, height: number, subject: string): Promise<void> {
    const control = await this.control(pod);
    let error: string;
    try {
      error = await control.resize(key, width, height);
    } catch (err) {
      error = (err as Error).message;
    }
    if (error !== '')
      throw new FailedPreconditionError(
        `${subject}: its pod keeper did not resize the terminal: ${error}`,
        'PTY.KEEPER',
      );
  }

  /**
   * Start of a created init: `S`, runc's start handshake done by the keeper, its parent, which
   * finishes it even if this process dies meanwhile. A control connection lost before `s` leaves
   * the outcome unknown: UNAVAILABLE, as for a call in flight at a crash.
   */
  async start(pod: string, key: string, fifo: string): Promise<{ outcome: StartOutcome; error: string }> {
    const control = await this.control(pod);
    try {
      return await control.start(key, fifo);
    } catch (err) {
      throw new NetworkError(
        `the pod keeper of ${pod} was lost while it started ${key} (${err instanceof Error ? err.message : String(err)}); check the task's state`,
        'KEEPER.LOST',
      );
    }
  }

  /**
   * CloseIO: `C`. Right after a restart the call may come before the keeper's control
   * connection: it waits for it as a launch does, and fails the call (try again) without one.
   */
  async closeStdin(pod: string, key: string): Promise<void> {
    const control = await this.control(pod);
    try {
      control.closeStdin(key);
    } catch (err) {
      throw new FailedPreconditionError(
        `the pod keeper of ${pod} lost its control connection while stdin of ${key} was closed; try again`,
        'KEEPER.NO_CONTROL',
        { cause: err },
      );
    }
  }

  /**
   * Delete: the keeper forgets the key (docs/keeper-protocol.md, `D`), waiting for the keeper's
   * control connection as closeStdin does; a keeper that has none holds the key on, said on the log.
   */
  async release(pod: string, key: string): Promise<void> {
    this.watchers.delete(key);
    this.noReleaseOnConnect(pod, key);
    try {
      (await this.control(pod)).release(key);
    } catch (err) {
      this.log(`the release of ${key}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * Forget: containerd's `delete` removed the key's container after its keeper died. Nothing
   * waits for a control connection that will not come; a live one (a new keeper of the pod
   * cannot hold the key) is told all the same.
   */
  drop(pod: string, key: string): void {
    this.watchers.delete(key);
    this.noReleaseOnConnect(pod, key);
    this.tell(pod, (control) => control.release(key));
  }

  /**
   * Releases a key without waiting: at once on the pod's control connection, or first thing on
   * its next one (a serving process taking tasks over has none yet: the keepers connect once it
   * serves). For what a previous serving process left half-done (RuncTaskHandle.cancelStart).
   */
  releaseOnConnect(pod: string, key: string): void {
    this.watchers.delete(key);
    if (this.controls.has(pod)) return this.tell(pod, (control) => control.release(key));
    const keys = this.releasesOnConnect.get(pod) ?? new Set<string>();
    this.releasesOnConnect.set(pod, keys.add(key));
  }

  /** A release asked for meanwhile makes one waiting for the connection needless; a pod with none waiting keeps no entry. */
  private noReleaseOnConnect(pod: string, key: string): void {
    const keys = this.releasesOnConnect.get(pod);
    if (keys?.delete(key) === true && keys.size === 0) this.releasesOnConnect.delete(pod);
  }

  /** The pods and keys whose releases wait for a connection: none once each is sent or taken back. */
  get releasesWaiting(): { readonly pods: number; readonly keys: number } {
    let keys = 0;
    for (const waiting of this.releasesOnConnect.values()) keys += waiting.size;
    return { pods: this.releasesOnConnect.size, keys };
  }

  private tell(pod: string, send: (control: KeeperControl) => void): void {
    const control = this.controls.get(pod);
    if (control === undefined) return;
    try {
      send(control);
    } catch {
      // Lost meanwhile: the keeper resends what matters (its exits) on its next connection.
    }
  }

  private control(pod: string): Promise<KeeperControl> {
    const present = this.controls.get(pod);
    if (present !== undefined) return Promise.resolve(present);
    return new Promise((resolve, reject) => {
      const arrived = () => {
        const control = this.controls.get(pod);
        if (control === undefined) return;
        this.arrivals.delete(arrived);
        clearTimeout(timer);
        resolve(control);
      };
      const timer = setTimeout(() => {
        this.arrivals.delete(arrived);
        reject(
          new FailedPreconditionError(
            `the pod keeper of ${pod} has no control connection to this serving process; try again`,
            'KEEPER.NO_CONTROL',
          ),
        );
      }, CONTROL_WAIT_MS);
      this.arrivals.add(arrived);
    });
  }

  private exit(pod: string, exit: KeptExit): void {
    const watcher = this.watchers.get(exit.key);
    const ack = () => this.tell(pod, (control) => control.ack(exit.key));
    if (watcher === undefined) return ack();
    this.watchers.delete(exit.key);
    const reported = watcher.exits
      .report(exitOfWaitStatus(exit.status, exit.at))
      .then(ack)
      .catch((err: unknown) =>
        this.log(`the exit of ${exit.key}: ${err instanceof Error ? err.message : String(err)}`),
      );
    this.reporting.add(reported);
    void reported.finally(() => this.reporting.delete(reported));
  }

  /**
   * Tells every keeper this process hands over (`Q`), before its connections close: a keeper
   * then counts none of those closes against the serving process, and reconnects at once.
   */
  announceHandOver(): void {
    for (const pod of this.controls.keys()) this.tell(pod, (control) => control.handingOver());
  }

  /**
   * A hand-over (docs/upgrade.md): reads no further message, lets every exit taken so far be
   * reported and acked, then closes every control connection. The keepers send what came
   * after (their exits until acked) to the next serving process.
   */
  async handOver(): Promise<void> {
    for (const control of this.controls.values()) control.stopReading();
    while (this.reporting.size > 0) await Promise.allSettled([...this.reporting]);
    for (const control of [...this.controls.values()]) control.close();
  }

  /** An adopted key the hello does not list, and whose exit does not follow, is a process the keeper lost: 255. */
  private hello(pod: string, held: ReadonlySet<string>): void {
    for (const [key, watcher] of this.watchers) {
      if (watcher.pod !== pod || !watcher.adopted || held.has(key)) continue;
      setTimeout(() => {
        if (this.watchers.get(key) !== watcher) return;
        this.watchers.delete(key);
        void watcher.exits.report(UNKNOWN_EXIT);
      }, EXIT_AFTER_HELLO_MS).unref();
    }
  }
}

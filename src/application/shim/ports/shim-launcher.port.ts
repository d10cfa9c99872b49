export const SHIM_LAUNCHER = Symbol('ShimLauncher');

export interface RunShimOptions {
  /** The run's task id: it names the run's directory, where `skiff task --id` finds the shim. */
  readonly id: string;
  readonly runtime: string;
  /** The shim ends its task, and itself, as soon as this process is gone (`skiff run --rm`). */
  readonly boundToCaller: boolean;
}

export interface LaunchedShim {
  /** The socket the shim serves. */
  readonly address: string;
  /** The run's private directory (0700), for its FIFOs and a derived bundle; removed with the run. */
  readonly dir: string;
  /** stop: waits briefly for the shim to exit (after Shutdown), kills it otherwise, removes the run's directory. */
  stop(): Promise<void>;
  /** detach: leaves the shim serving on its own after this process exits (`skiff run -d`). */
  detach(): void;
}

export interface ShimLauncher {
  /** launch: starts the shim of one run in the background; resolves once it accepts connections. AlreadyExists if a live run has the id. */
  launch(options: RunShimOptions): Promise<LaunchedShim>;
}

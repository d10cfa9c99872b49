export const SHIM_LAUNCHER = Symbol('ShimLauncher');

export interface LaunchedShim {
  /** The socket the shim serves. */
  readonly address: string;
  /** stop: waits briefly for the shim to exit (after Shutdown), kills it otherwise, removes its files. */
  stop(): Promise<void>;
}

export interface ShimLauncher {
  /** launch: starts a shim in the background on a private socket; resolves once it accepts connections. */
  launch(runtime: string): Promise<LaunchedShim>;
}

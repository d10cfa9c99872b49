export const SHIM_HOST = Symbol('ShimHost');

/** The process the task service runs in. */
export interface ShimHost {
  readonly pid: number;
  readonly version: string;
  /** requestExit: stops serving and exits once the current reply has been sent. */
  requestExit(): void;
  /** warn: one line for the operator (the shim's log), for what goes wrong outside any RPC. */
  warn(line: string): void;
}

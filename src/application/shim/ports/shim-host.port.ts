export const SHIM_HOST = Symbol('ShimHost');

/** The process the task service runs in. */
export interface ShimHost {
  readonly pid: number;
  readonly version: string;
  /** requestExit: stops serving and exits once the current reply has been sent. */
  requestExit(): void;
}

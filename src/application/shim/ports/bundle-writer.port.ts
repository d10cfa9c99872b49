import { ProcessOverrides } from '../../../domain/shim/process-overrides';

export const BUNDLE_WRITER = Symbol('BundleWriter');

export interface BundleWriter {
  /**
   * check: InvalidArgument naming `source` (never a task) when it is no bundle a task can be
   * made from: not a directory, no readable config.json, not an OCI spec with a process.
   */
  check(source: string): Promise<void>;
  /**
   * derive: a bundle in `dir` whose config.json is `source`'s with the process overrides
   * applied (its rootfs still the original); resolves to the new bundle's path.
   * InvalidArgument when `source` has no readable config.json.
   */
  derive(source: string, dir: string, overrides: ProcessOverrides): Promise<string>;
}

import { ProcessOverrides } from '../../../domain/shim/process-overrides';

export const BUNDLE_WRITER = Symbol('BundleWriter');

export interface BundleWriter {
  /**
   * derive: a bundle in `dir` whose config.json is `source`'s with the process overrides
   * applied (its rootfs still the original); resolves to the new bundle's path.
   * InvalidArgument when `source` has no readable config.json.
   */
  derive(source: string, dir: string, overrides: ProcessOverrides): Promise<string>;
}

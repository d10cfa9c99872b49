import { BundleFactory } from '../../support/bundles';

export interface BundleOptions {
  readonly env?: string[];
  readonly cwd?: string;
}

/** How the end-to-end suite makes bundles for one runtime. */
export interface RuntimeFixture {
  readonly name: string;
  bundle(args: string[], options?: BundleOptions): string;
  cleanup(): void;
}

const PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function nativeFixture(): RuntimeFixture {
  const factory = new BundleFactory();
  return {
    name: 'native',
    bundle: (args, options = {}) =>
      factory.makeWithConfig({
        ociVersion: '1.0.2',
        process: { args, env: [PATH, 'TERM=xterm', ...(options.env ?? [])], cwd: options.cwd ?? '/' },
        root: { path: 'rootfs' },
      }),
    cleanup: () => factory.cleanup(),
  };
}

/** The runtimes this machine can run the suite on. */
export function runtimeFixtures(): Array<[string, () => RuntimeFixture]> {
  return [['native', nativeFixture]];
}

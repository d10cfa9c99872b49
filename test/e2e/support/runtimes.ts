import { BundleFactory } from '../../support/bundles';
import { RuncBundleFactory, runcTestsEnabled } from '../../support/runc-bundles';
import { Transport } from './task-client';

export interface BundleOptions {
  readonly env?: string[];
  readonly cwd?: string;
  /** process.terminal in config.json (runc takes the terminal from it; native ignores it). */
  readonly terminal?: boolean;
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
        process: {
          args,
          env: [PATH, 'TERM=xterm', ...(options.env ?? [])],
          cwd: options.cwd ?? '/',
          terminal: options.terminal ?? false,
        },
        root: { path: 'rootfs' },
      }),
    cleanup: () => factory.cleanup(),
  };
}

/** Containers on a busybox rootfs (Debian's busybox-static), one cgroup each. */
export function runcFixture(): RuntimeFixture {
  const factory = new RuncBundleFactory();
  return {
    name: 'runc',
    bundle: (args, options = {}) => factory.make(args, options),
    cleanup: () => factory.cleanup(),
  };
}

/** The runtimes the suite runs on here: native always, runc as root (see runcTestsEnabled). */
export function runtimeFixtures(): Array<[string, () => RuntimeFixture]> {
  return [
    ['native', nativeFixture],
    ...(runcTestsEnabled() ? [['runc', runcFixture] as [string, () => RuntimeFixture]] : []),
  ];
}

/**
 * The shim set-ups the shared suites run: every runtime over gRPC, and native over
 * ttrpc (containerd 1.6's transport). Both transports share one table of handlers,
 * so one runtime is enough to hold the second transport to the same behaviour.
 */
export function shimVariants(): Array<[string, Transport, () => RuntimeFixture]> {
  return [
    ...runtimeFixtures().map(([name, make]): [string, Transport, () => RuntimeFixture] => [name, 'grpc', make]),
    ['native', 'ttrpc', nativeFixture],
  ];
}

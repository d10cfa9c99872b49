import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { requireSuiteTools, SuiteGate, suitesRunHere } from './suite-gate';

/** The bundle maker the README, the tests and the benchmark share (plain JS, in scripts/). */
const busybox = require('../../scripts/busybox-bundle.js') as {
  makeBusyboxRootfs(dir: string): string;
  runcConfig(
    args: string[],
    options: RuncBundleOptions & { root?: string; cgroupsPath?: string },
  ): Record<string, unknown>;
};

const CGROUP_ROOT = '/sys/fs/cgroup';

/** Whether the runc suites run here: root, runc and busybox-static (SKIFF_RUNC_TESTS as suitesRunHere says). */
export function runcTestsEnabled(): boolean {
  return suitesRunHere(RUNC_SUITES);
}

const RUNC_SUITES: SuiteGate = {
  suites: 'runc suites',
  flag: 'SKIFF_RUNC_TESTS',
  tools: ['runc'],
  packages: 'runc busybox-static criu',
};

export interface RuncBundleOptions {
  readonly env?: string[];
  readonly cwd?: string;
  readonly terminal?: boolean;
  /**
   * A private pid namespace (the init is pid 1). Off by default: the kernel ignores signals
   * without a handler sent to a namespace's pid 1 from outside (SIGTERM to a pid-1 `sleep`
   * does nothing), which would hide what the shared suite checks (the shim reports
   * 128+signal); the runc-only tests use one.
   */
  readonly pidNamespace?: boolean;
  readonly hostname?: string;
  /** Give the bundle an empty rootfs/ of its own (for CreateTaskRequest.rootfs mounts) instead of the shared one. */
  readonly ownRootfs?: boolean;
}

/**
 * Bundles for the runc runtime: one shared read-only busybox rootfs, one directory and
 * one cgroup per bundle. `cleanup()` removes them and fails when a cgroup was left behind.
 */
export class RuncBundleFactory {
  readonly root: string;
  readonly rootfs: string;
  private readonly cgroupParent: string;
  private readonly cgroups = new Map<string, string>();
  private count = 0;

  constructor() {
    requireSuiteTools(RUNC_SUITES);
    this.root = mkdtempSync(join(tmpdir(), 'skiff-runc-'));
    this.rootfs = busybox.makeBusyboxRootfs(join(this.root, 'rootfs'));
    this.cgroupParent = `/skiff-test/${basename(this.root)}`;
  }

  make(args: string[], options: RuncBundleOptions = {}): string {
    const dir = join(this.root, `b${this.count}`);
    const cgroup = `${this.cgroupParent}/b${this.count++}`;
    mkdirSync(dir);
    let root = this.rootfs;
    if (options.ownRootfs) {
      mkdirSync(join(dir, 'rootfs'));
      root = 'rootfs';
    }
    const config = busybox.runcConfig(args, { hostname: 'skiff-test', ...options, root, cgroupsPath: cgroup });
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 1));
    this.cgroups.set(dir, cgroup);
    return dir;
  }

  /** The cgroup directories of the container made from `bundle`, in each hierarchy. */
  cgroupDirsOf(bundle: string): string[] {
    const path = this.cgroups.get(bundle);
    return path === undefined ? [] : cgroupDirs(path);
  }

  /** Leftover cgroups of this factory's bundles (every hierarchy: v1 controllers or the v2 tree). */
  leftoverCgroups(): string[] {
    return cgroupDirs(this.cgroupParent).flatMap((dir) =>
      readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => join(dir, e.name)),
    );
  }

  cleanup(): void {
    const leaked = this.leftoverCgroups();
    for (const dir of cgroupDirs(this.cgroupParent).reverse()) {
      try {
        rmdirSync(dir);
        rmdirSync(dirname(dir));
      } catch {
        // not empty: reported below, or the shared /skiff-test of another factory
      }
    }
    rmSync(this.root, { recursive: true, force: true });
    if (leaked.length > 0) throw new Error(`runc containers left cgroups behind: ${leaked.join(', ')}`);
  }
}

/** Where a cgroup path lives in each mounted hierarchy that has it. */
function cgroupDirs(path: string): string[] {
  const roots = existsSync(join(CGROUP_ROOT, 'cgroup.controllers'))
    ? [CGROUP_ROOT]
    : readdirSync(CGROUP_ROOT).map((name) => join(CGROUP_ROOT, name));
  return roots.map((root) => join(root, path)).filter((dir) => existsSync(dir));
}

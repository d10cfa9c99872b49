import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** The Debian package that gives the test rootfs its /bin/busybox (a static build: no libraries needed). */
const BUSYBOX = '/bin/busybox';
const PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const CGROUP_ROOT = '/sys/fs/cgroup';

/**
 * Whether the runc suites run here. They need root and runc; as root they always run (a
 * machine without runc then fails them with what to install, rather than passing in
 * silence). SKIFF_RUNC_TESTS=0 turns them off, =1 forces them on (CI sets it).
 */
export function runcTestsEnabled(): boolean {
  const flag = process.env.SKIFF_RUNC_TESTS;
  if (flag === '0') return false;
  if (flag === '1') return true;
  return process.getuid?.() === 0;
}

export interface RuncBundleOptions {
  readonly env?: string[];
  readonly cwd?: string;
  readonly terminal?: boolean;
  /** A private pid namespace (the init is pid 1); off by default, see makeRuncConfig. */
  readonly pidNamespace?: boolean;
  readonly hostname?: string;
  /** Give the bundle an empty rootfs/ of its own (for CreateTaskRequest.rootfs mounts) instead of the shared one. */
  readonly ownRootfs?: boolean;
}

function requireTools(): void {
  const problems: string[] = [];
  if (process.getuid?.() !== 0) problems.push('they must run as root');
  try {
    execFileSync('runc', ['--version'], { stdio: 'ignore' });
  } catch {
    problems.push('runc is not installed');
  }
  if (!existsSync(BUSYBOX)) problems.push(`${BUSYBOX} is missing`);
  if (problems.length > 0) {
    throw new Error(`the runc test suites cannot run: ${problems.join(', ')}. Install them (apt-get install runc busybox-static criu) and run as root, or set SKIFF_RUNC_TESTS=0 to leave them out.`);
  }
}

/** A busybox root filesystem: Debian's static busybox and one symlink per applet (`busybox --install -s`). */
export function makeBusyboxRootfs(dir: string): string {
  for (const sub of ['bin', 'sbin', 'usr/bin', 'usr/sbin', 'proc', 'dev', 'sys', 'tmp', 'etc', 'root']) mkdirSync(join(dir, sub), { recursive: true });
  copyFileSync(BUSYBOX, join(dir, 'bin/busybox'));
  chmodSync(join(dir, 'bin/busybox'), 0o755);
  const applets = execFileSync(BUSYBOX, ['--list-full'], { encoding: 'utf8' }).split('\n').filter((l) => l !== '');
  for (const applet of applets) {
    const link = join(dir, applet);
    if (!existsSync(link)) symlinkSync('/bin/busybox', link);
  }
  writeFileSync(join(dir, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  writeFileSync(join(dir, 'etc/group'), 'root:x:0:\n');
  return dir;
}

/**
 * An OCI config.json as `runc spec` writes it, for `args`: uts, ipc, mount and network
 * namespaces, a read-only root, a tmpfs /tmp, and its own cgroup. No pid namespace by
 * default: the kernel ignores signals without a handler sent to a namespace's pid 1 from
 * outside (SIGTERM to a pid-1 `sleep` does nothing), which would hide what the shared
 * suite checks (the shim reports 128+signal); the runc-only tests use one.
 */
export function makeRuncConfig(args: string[], root: string, cgroupsPath: string, options: RuncBundleOptions = {}): Record<string, unknown> {
  const caps = ['CAP_AUDIT_WRITE', 'CAP_KILL', 'CAP_NET_BIND_SERVICE', 'CAP_CHOWN', 'CAP_SETUID', 'CAP_SETGID', 'CAP_DAC_OVERRIDE', 'CAP_FOWNER'];
  const namespaces = ['ipc', 'uts', 'mount', 'network', ...(options.pidNamespace ? ['pid'] : [])].map((type) => ({ type }));
  return {
    ociVersion: '1.0.2-dev',
    process: {
      terminal: options.terminal ?? false,
      user: { uid: 0, gid: 0 },
      args,
      env: [PATH, 'TERM=xterm', ...(options.env ?? [])],
      cwd: options.cwd ?? '/',
      capabilities: { bounding: caps, effective: caps, permitted: caps, ambient: caps },
      rlimits: [{ type: 'RLIMIT_NOFILE', hard: 1024, soft: 1024 }],
      noNewPrivileges: true,
    },
    root: { path: root, readonly: true },
    hostname: options.hostname ?? 'skiff-test',
    mounts: [
      { destination: '/proc', type: 'proc', source: 'proc' },
      { destination: '/dev', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'strictatime', 'mode=755', 'size=65536k'] },
      { destination: '/dev/pts', type: 'devpts', source: 'devpts', options: ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620', 'gid=5'] },
      { destination: '/dev/shm', type: 'tmpfs', source: 'shm', options: ['nosuid', 'noexec', 'nodev', 'mode=1777', 'size=65536k'] },
      { destination: '/dev/mqueue', type: 'mqueue', source: 'mqueue', options: ['nosuid', 'noexec', 'nodev'] },
      { destination: '/sys', type: 'sysfs', source: 'sysfs', options: ['nosuid', 'noexec', 'nodev', 'ro'] },
      { destination: '/tmp', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'nodev', 'mode=1777', 'size=65536k'] },
    ],
    linux: {
      cgroupsPath,
      resources: { devices: [{ allow: false, access: 'rwm' }] },
      namespaces,
      maskedPaths: ['/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list', '/proc/timer_stats', '/proc/sched_debug', '/sys/firmware', '/proc/scsi'],
      readonlyPaths: ['/proc/asound', '/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'],
    },
  };
}

/**
 * Bundles for the runc runtime: one shared read-only busybox rootfs, one directory and
 * one cgroup per bundle. `cleanup()` removes them and fails when a cgroup was left behind.
 */
export class RuncBundleFactory {
  readonly root: string;
  readonly rootfs: string;
  private readonly cgroupParent: string;
  private count = 0;

  constructor() {
    requireTools();
    this.root = mkdtempSync(join(tmpdir(), 'skiff-runc-'));
    this.rootfs = makeBusyboxRootfs(join(this.root, 'rootfs'));
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
    writeFileSync(join(dir, 'config.json'), JSON.stringify(makeRuncConfig(args, root, cgroup, options), null, 1));
    return dir;
  }

  /** Leftover cgroups of this factory's bundles (every hierarchy: v1 controllers or the v2 tree). */
  leftoverCgroups(): string[] {
    return cgroupDirs(this.cgroupParent).flatMap((dir) => readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(dir, e.name)));
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

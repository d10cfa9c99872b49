import { mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nativeFixture, RuntimeFixture } from '../e2e/support/runtimes';
import { RunningShim, startShim } from '../e2e/support/shim-process';
import { runcTestsEnabled } from '../support/runc-bundles';
import { waitFor } from '../support/wait-for';
import { figure } from './scale';

const busybox = require('../../scripts/busybox-bundle.js') as {
  makeBusyboxRootfs(dir: string): string;
  runcConfig(args: string[], options: { root?: string }): Record<string, unknown>;
};

const LIFECYCLES = 120;
const WARM_UP = 10;

/**
 * The descriptors of one serving process after many container lifecycles (Create, Start,
 * Kill, Wait, Delete), on each runtime, every container under the same id as `ctr run --rm
 * <name>` in a loop gives. The runc containers have no cgroupsPath, so runc names their
 * cgroup after that id: the cgroup v1 OOM watch once took a removal's late signal for the
 * next container's, and kept an eventfd and memory.oom_control open for about one
 * lifecycle in four. This machine's cgroup version is the one tested: every
 * controller is on v1 here, and on a cgroup v2 host the same test runs the v2 watch.
 */
describe.each(runtimes())('descriptors of the serving process after %s lifecycles', (name, bundleOf) => {
  let shim: RunningShim;
  let bundle: string;
  let cleanup: () => void;

  beforeAll(async () => {
    shim = await startShim(name);
    ({ bundle, cleanup } = bundleOf(shim.dir));
  });
  afterAll(async () => {
    await shim.stop();
    cleanup();
  });

  it(`holds as many descriptors after ${LIFECYCLES} lifecycles as after ${WARM_UP}`, async () => {
    const pid = shim.child.pid as number;
    for (let i = 0; i < WARM_UP; i++) await lifecycle(i);
    const before = descriptors(pid);
    for (let i = 0; i < LIFECYCLES; i++) await lifecycle(i);
    // A descriptor of the last lifecycle may still be on its way out (a helper's pipe).
    const settled = await waitFor(
      () => 'the descriptors to settle',
      () => {
        const now = descriptors(pid);
        return now.length <= before.length ? now : undefined;
      },
      2000,
    ).catch(() => descriptors(pid));
    figure(`${name}: fds ${before.length} after ${WARM_UP} lifecycles, ${settled.length} after ${LIFECYCLES} more`);
    // A leak grows a kind of descriptor. A kind may also shrink: the warm-up's last lifecycle can
    // still hold one on its way out when `before` is taken (its OOM watch's eventfd).
    const counted = kinds(before);
    expect(Object.entries(kinds(settled)).filter(([kind, n]) => n > (counted[kind] ?? 0))).toEqual([]);
  }, 180_000);

  /** Create, Start, Kill (SIGKILL or SIGTERM), Wait, Delete; the id is this process's, so no other run's cgroup has its name. */
  async function lifecycle(i: number): Promise<void> {
    const client = shim.client;
    const id = `again-${process.pid}`;
    await client.create({ id, bundle });
    const wait = client.wait(id);
    await client.start(id);
    await client.kill(id, i % 2 === 0 ? 9 : 15);
    await wait;
    await client.delete(id);
  }
});

type BundleOf = (dir: string) => { bundle: string; cleanup: () => void };

/** One bundle per runtime, shared by every lifecycle: a process that runs until it is signalled. */
const ARGS = ['sleep', '1000'];
function runtimes(): Array<[string, BundleOf]> {
  const native: BundleOf = () => {
    const fx: RuntimeFixture = nativeFixture();
    return { bundle: fx.bundle(ARGS), cleanup: fx.cleanup };
  };
  const runc: BundleOf = (dir) => {
    const bundle = join(dir, 'bundle');
    mkdirSync(bundle);
    busybox.makeBusyboxRootfs(join(bundle, 'rootfs'));
    const config = busybox.runcConfig(ARGS, {});
    writeFileSync(join(bundle, 'config.json'), JSON.stringify(config));
    return { bundle, cleanup: () => undefined };
  };
  return [['native', native], ...(runcTestsEnabled() ? [['runc', runc] as [string, BundleOf]] : [])];
}

/** What each open descriptor of `pid` is (a file's path, `anon_inode:[eventfd]`, `socket:`, `pipe:`). */
function descriptors(pid: number): string[] {
  return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
    } catch {
      return []; // closed meanwhile
    }
  });
}

/** The descriptors counted by kind, so a failure says what was left open. */
function kinds(fds: string[]): Record<string, number> {
  const count: Record<string, number> = {};
  for (const fd of fds) {
    const kind = fd.replace(/\[\d+\]$/, '[]').replace(/^\/sys\/fs\/cgroup\/.*\//, '/sys/fs/cgroup/.../');
    count[kind] = (count[kind] ?? 0) + 1;
  }
  return count;
}

import { containerdTestsEnabled } from '../../support/containerd';
import { fdCount, podKeeperPids } from '../../support/cri';
import { liveMemoryBytes } from '../../support/live-memory';
import { waitFor } from '../../support/wait-for';
import { figure } from '../../reliability/scale';
import { CriEnv, startCriEnv } from './support';

interface Sample {
  readonly containers: number;
  readonly fds: number;
  readonly threads: number;
  readonly rssMiB: number;
  /** Descriptors of the soak pod's keeper, through which each crash-looping attempt is launched. */
  readonly podShimFds?: number;
}

interface Measured extends Sample {
  /** The JS heap in use after a full collection. */
  readonly liveMiB: number;
}

const soakJs = require('../../../scripts/containerd/soak.js') as {
  soak(options: {
    env: CriEnv['env'];
    cri: CriEnv['cri'];
    logDir: string;
    containers: number;
    every: number;
    onSample?: (s: Sample, pid: number) => Promise<void>;
  }): Promise<{ samples: Sample[]; servingPids: number[] }>;
  sample(pid: number, containers: number): Sample;
  describeSample(s: Sample): string;
};

const CONTAINERS = 300;
const EVERY = 50;
/** Samples from here on are judged: by then connections, the JIT and V8's heap have settled. */
const WARM_UP = 100;
/**
 * The JS heap after a full collection may grow this much from the warm-up to the end: the
 * JIT's optimised code and its dependency lists, ~0.1 MiB per hundred containers and slowing
 * (docs/reliability.md); a leak of 5 KiB per container would pass it, the 35 KiB per container
 * RSS grew by before would not.
 */
const LIVE_SLACK_MIB = 1;
/**
 * RSS, read right after that collection, may grow this much: V8 keeps some freed pages of
 * its old generation pooled for reuse, and malloc keeps what it grew (1-3 MiB seen).
 * The growth this guards against was 3.5 MiB per hundred containers, 7 MiB here.
 */
const RSS_SLACK_MIB = 4;

/**
 * The soak sized for CI (`npm run bench` runs 2,000, bench/soak.bench.js): ctr's containers
 * (one exits, one is killed) and a crash-looping CRI container, all through the one serving
 * process of the k8s.io namespace (scripts/containerd/soak.js); its descriptors and threads
 * flat, its live heap and RSS bounded.
 */
if (containerdTestsEnabled())
  describe(`${CONTAINERS} containers through one serving process`, () => {
    let ctx: CriEnv;

    beforeAll(async () => {
      // A free port for the inspector that liveMemoryBytes opens in the serving process.
      ctx = await startCriEnv({ env: { NODE_OPTIONS: '--inspect-port=127.0.0.1:0' } });
    });
    afterAll(async () => {
      await ctx?.close();
    });

    it('keeps its descriptors and threads flat and its memory bounded', async () => {
      const measured: Measured[] = [];
      let pid = 0;
      const { servingPids } = await soakJs.soak({
        env: ctx.env,
        cri: ctx.cri,
        logDir: ctx.logDir,
        containers: CONTAINERS,
        every: EVERY,
        onSample: async (s, serving) => {
          pid = serving;
          // The collection first (the inspector it opens is counted from the first sample on),
          // then the figures, RSS included, of a heap holding only what is live.
          const liveMiB = (await liveMemoryBytes(pid)) / 2 ** 20;
          const m = { ...soakJs.sample(pid, s.containers), podShimFds: s.podShimFds, liveMiB };
          measured.push(m);
          figure(`soak: ${soakJs.describeSample(m)}, live heap ${liveMiB.toFixed(2)} MiB`);
        },
      });
      expect(servingPids).toHaveLength(1);
      const base = measured.find((s) => s.containers === WARM_UP) as Measured;
      expect(measured[measured.length - 1].containers).toBe(CONTAINERS);
      for (const s of measured.filter((x) => x.containers > WARM_UP)) {
        expect({ containers: s.containers, threads: s.threads }).toEqual({
          containers: s.containers,
          threads: base.threads,
        });
        expect(s.liveMiB - base.liveMiB).toBeLessThan(LIVE_SLACK_MIB);
        // What each attempt brings into its pod's keeper (its stdio, its key) ends with it.
        expect({ containers: s.containers, podShimFds: s.podShimFds }).toEqual({
          containers: s.containers,
          podShimFds: base.podShimFds,
        });
        expect(s.rssMiB - base.rssMiB).toBeLessThan(RSS_SLACK_MIB);
      }
      // A descriptor may still be on its way out when a sample is taken (containerd closes its
      // connection for a deleted task on its own time): flat means back to the warm-up's count.
      await waitFor(
        () => `the serving process's descriptors to return to ${base.fds} (${fdCount(pid)})`,
        () => fdCount(pid) <= base.fds,
        5000,
      );
      // Each ctr container had a pod keeper of its own, which leaves after its container's
      // Shutdown: only the soak pod's keeper is left.
      await waitFor(
        () => `the ctr containers' pod keepers to leave (${podKeeperPids(ctx.env.address).length} left)`,
        () => podKeeperPids(ctx.env.address).length === 1,
        5000,
      );
    }, 240_000);
  });

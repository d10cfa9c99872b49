import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENTS } from '../../../src/application/shim/ports/events.port';
import { SHIM_HOST } from '../../../src/application/shim/ports/shim-host.port';
import { DiscardedEvents } from '../../../src/adapters/shim/outbound/events/discarded-events';
import { ForwardedEvents } from '../../../src/adapters/shim/outbound/events/forwarded-events';
import { PodKeepers } from '../../../src/adapters/shim/outbound/keeper/pod-keepers';
import { ShimProcessHost } from '../../../src/adapters/shim/outbound/shim-host/shim-process-host';
import { ContainerdLog } from '../../../src/adapters/shim/os/containerd-log';
import { buildContainer } from '../../../src/infrastructure/shared/container';
import { CONTAINERD_LOG, FORWARDED_EVENTS, POD_KEEPERS } from '../../../src/infrastructure/shim/shim.module';

/**
 * What serves beside the task service is bound in the shim module, not built by an entry:
 * containerd's serving process (entry/containerd.ts) resolves its log, its forwarded events,
 * its pod keepers and its host from the container, one instance each, the same the service
 * and the runtime get.
 */
describe('the shim module', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'skiff-shim-module-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const containerd = (keepers: boolean) => ({
    namespace: 'ns',
    ttrpcAddress: join(dir, 'containerd.sock.ttrpc'),
    socket: join(dir, 'group.sock'),
    keepers,
  });

  it("binds containerd's serving process: its log, its events forwarded, its host, and the pod keepers behind them", () => {
    const c = buildContainer({ shim: { runtime: 'native', stateDir: dir, containerd: containerd(true) } });
    expect(c.get(CONTAINERD_LOG)).toBeInstanceOf(ContainerdLog);
    const events = c.get(FORWARDED_EVENTS);
    expect(events).toBeInstanceOf(ForwardedEvents);
    expect(c.get(EVENTS)).toBe(events);
    expect(c.get(SHIM_HOST)).toBe(c.get(ShimProcessHost));
    expect(c.get(POD_KEEPERS)).toBeInstanceOf(PodKeepers);
    expect(c.get(POD_KEEPERS)).toBe(c.get(POD_KEEPERS));
  });

  it('binds no pod keepers without them (SKIFF_KEEPER=0)', () => {
    const c = buildContainer({ shim: { runtime: 'native', stateDir: dir, containerd: containerd(false) } });
    expect(c.isBound(POD_KEEPERS)).toBe(false);
    expect(c.get(EVENTS)).toBeInstanceOf(ForwardedEvents);
  });

  it('`skiff shim serve`: events go nowhere, the host is this process, nothing of containerd is bound', () => {
    const c = buildContainer({ shim: { runtime: 'native', stateDir: dir } });
    expect(c.get(EVENTS)).toBeInstanceOf(DiscardedEvents);
    expect(c.get(SHIM_HOST)).toBeInstanceOf(ShimProcessHost);
    expect([c.isBound(CONTAINERD_LOG), c.isBound(FORWARDED_EVENTS), c.isBound(POD_KEEPERS)]).toEqual([
      false,
      false,
      false,
    ]);
  });
});

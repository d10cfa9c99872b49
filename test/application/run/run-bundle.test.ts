import { ContainerModule } from 'inversify';
import { InvalidArgumentError } from '../../../src/domain/shared/errors';
import { CONSOLE } from '../../../src/application/shim/ports/console.port';
import { SHIM_LAUNCHER } from '../../../src/application/shim/ports/shim-launcher.port';
import { TASK_CLIENT_FACTORY } from '../../../src/application/shim/ports/task-client.port';
import { RunBundle } from '../../../src/application/shim/run/run-bundle.use-case';
import { buildContainer } from '../../../src/infrastructure/shared/container';
import { FakeConsole } from '../../fakes/fake-console';
import { FakeShimLauncher } from '../../fakes/fake-shim-launcher';
import { InProcessTaskClientFactory } from '../../fakes/in-process-task-client';
import { BundleFactory } from '../../support/bundles';
import { shimWithFakes } from '../../support/test-container';

const bundles = new BundleFactory();
afterAll(() => bundles.cleanup());

function setup() {
  const shim = shimWithFakes();
  const clients = new InProcessTaskClientFactory(shim.service);
  const console = new FakeConsole();
  const launcher = new FakeShimLauncher();
  const fakes = new ContainerModule(({ rebindSync }) => {
    rebindSync(TASK_CLIENT_FACTORY).toConstantValue(clients);
    rebindSync(CONSOLE).toConstantValue(console);
    rebindSync(SHIM_LAUNCHER).toConstantValue(launcher);
  });
  const run = buildContainer({ run: true }, fakes).get(RunBundle);
  return { run, shim, clients, console, launcher };
}

describe('RunBundle (skiff run)', () => {
  it('returns the exit status after Wait, drained output, Delete and Shutdown', async () => {
    const { run, clients, console, launcher } = setup();
    const status = await run.execute({
      id: 'r1',
      bundle: bundles.make(['sh', '-c', 'exit 42']),
      runtime: 'native',
      terminal: false,
    });
    expect(status).toBe(42);
    expect(launcher.launched).toEqual(['native']);
    expect(clients.clients[0].calls).toEqual(['create', 'wait', 'start', 'delete', 'shutdown']);
    expect(console.outputWaited).toBe(true);
    expect(console.closed).toBe(true);
    expect(launcher.stopped).toBe(1);
  });

  it('forwards a signal it receives to the task and reports 128+signal', async () => {
    const { run, shim, console } = setup();
    const result = run.execute({
      id: 'r1',
      bundle: bundles.make(['sleep', '100']),
      runtime: 'native',
      terminal: false,
    });
    await waitUntil(() => shim.runtime.tasks.get('r1')?.started === true);
    console.events?.onSignal(2);
    expect(await result).toBe(130);
  });

  it("closes the task's stdin when the user's stdin ends, and passes resizes on", async () => {
    const { run, shim, console } = setup();
    const result = run.execute({ id: 'r1', bundle: bundles.make(['sleep', '100']), runtime: 'native', terminal: true });
    await waitUntil(() => shim.runtime.tasks.get('r1')?.started === true);
    console.events?.onStdinEnd();
    console.events?.onResize(120, 40);
    await waitUntil(() => shim.runtime.task('r1').stdinClosed && shim.runtime.task('r1').resizes.length === 1);
    console.events?.onSignal(9);
    expect(await result).toBe(137);
    expect(shim.runtime.task('r1').resizes).toEqual([[120, 40]]);
  });

  it('cleans up (console, shim) when Create is refused, and passes the error on', async () => {
    const { run, console, launcher } = setup();
    await expect(run.execute({ id: 'r1', bundle: '/no/bundle', runtime: 'native', terminal: false })).rejects.toThrow(
      InvalidArgumentError,
    );
    expect(console.closed).toBe(true);
    expect(launcher.stopped).toBe(1);
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setImmediate(r));
  if (!check()) throw new Error('condition never held');
}

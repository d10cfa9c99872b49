import { ContainerModule } from 'inversify';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError } from '../../../../src/domain/shared/errors';
import { CONSOLE } from '../../../../src/application/shim/ports/console.port';
import { SHIM_LAUNCHER } from '../../../../src/application/shim/ports/shim-launcher.port';
import { TASK_CLIENT_FACTORY } from '../../../../src/application/shim/ports/task-client.port';
import { RunBundle, RunBundleInput } from '../../../../src/application/shim/run/run-bundle.use-case';
import { RunDetached } from '../../../../src/application/shim/run/run-detached.use-case';
import { buildContainer } from '../../../../src/infrastructure/shared/container';
import { FakeConsole } from '../../../../src/adapters/fakes/shim/fake-console';
import { FakeShimLauncher } from '../../../../src/adapters/fakes/shim/fake-shim-launcher';
import { InProcessTaskClientFactory } from '../../../../src/adapters/fakes/shim/in-process-task-client';
import { BundleFactory } from '../../../support/bundles';
import { shimWithFakes } from '../../../support/test-container';
import { waitFor } from '../../../support/wait-for';

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
  return { run, shim, clients, console, launcher, fakes };
}

describe('RunBundle (skiff run)', () => {
  it('returns the exit status after Wait, drained output, Delete and Shutdown', async () => {
    const { run, clients, console, launcher } = setup();
    const status = await run.execute(input({ bundle: bundles.make(['sh', '-c', 'exit 42']) }));
    expect(status).toBe(42);
    expect(launcher.launched).toEqual([{ id: 'r1', runtime: 'native', boundToCaller: false }]);
    expect(console.dir).toBe(launcher.dirs[0]);
    expect(clients.clients[0].calls).toEqual(['create', 'wait', 'start', 'delete', 'shutdown']);
    expect(console.outputWaited).toBe(true);
    expect(console.closed).toBe(true);
    expect(launcher.stopped).toBe(1);
  });

  it('forwards a signal it receives to the task and reports 128+signal', async () => {
    const { run, shim, console } = setup();
    const result = run.execute(input({ bundle: bundles.make(['sleep', '100']) }));
    await waitFor('the task to start', () => shim.runtime.tasks.get('r1')?.started === true);
    console.events?.onSignal(2);
    expect(await result).toBe(130);
  });

  it("closes the task's stdin when the user's stdin ends, and passes resizes on", async () => {
    const { run, shim, console } = setup();
    const result = run.execute(input({ bundle: bundles.make(['sleep', '100']), terminal: true }));
    await waitFor('the task to start', () => shim.runtime.tasks.get('r1')?.started === true);
    console.events?.onStdinEnd();
    console.events?.onResize(120, 40);
    await waitFor(
      'the task to see its stdin closed and one resize',
      () => shim.runtime.task('r1').stdinClosed && shim.runtime.task('r1').resizes.length === 1,
    );
    console.events?.onSignal(9);
    expect(await result).toBe(137);
    expect(shim.runtime.task('r1').resizes).toEqual([[120, 40]]);
  });

  it('cleans up (console, shim) when Create is refused, and passes the error on', async () => {
    const { run, shim, console, launcher } = setup();
    shim.runtime.failNextCreateWith = new InvalidArgumentError('refused', 'TEST.REFUSED');
    await expect(run.execute(input({ bundle: bundles.make(['true']) }))).rejects.toThrow('refused');
    expect(console.closed).toBe(true);
    expect(launcher.stopped).toBe(1);
  });

  it.each([
    ['/no/bundle', /^bundle \/no\/bundle does not exist$/],
    ['/dev/null', /^bundle \/dev\/null is not a directory$/],
    ['/', /^\/config\.json is missing or unreadable; a bundle holds an OCI config\.json$/],
  ])(
    'refuses %s, which is no bundle, before launching anything, naming the bundle and no task',
    async (bundle, message) => {
      const { run, launcher } = setup();
      await expect(run.execute(input({ bundle }))).rejects.toThrow(message);
      expect(launcher.launched).toEqual([]);
    },
  );

  it('with --rm, launches the shim bound to this process', async () => {
    const { run, launcher } = setup();
    await run.execute(input({ bundle: bundles.make(['true']), rm: true }));
    expect(launcher.launched[0].boundToCaller).toBe(true);
  });

  it('creates the task from a copy of the bundle with --env and --cwd applied, in the run directory', async () => {
    const { run, shim, launcher } = setup();
    const source = bundles.make(['sleep', '100']);
    const result = run.execute(input({ bundle: source, overrides: { env: ['TERM=dumb', 'A=1'], cwd: '/tmp' } }));
    await waitFor('the task to start', () => shim.runtime.tasks.get('r1')?.started === true);
    const bundle = (await shim.service.state({ id: 'r1', execId: '' })).bundle;
    expect(bundle).toBe(join(launcher.dirs[0], 'bundle'));
    const config = JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8'));
    expect(config.process).toMatchObject({
      env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'TERM=dumb', 'A=1'],
      cwd: '/tmp',
    });
    expect(config.root.path).toBe(join(source, 'rootfs'));
    await shim.service.kill({ id: 'r1', execId: '', signal: 9, all: false });
    expect(await result).toBe(137);
  });

  it('refuses a bad id, --env or --cwd before launching anything', async () => {
    const { run, launcher } = setup();
    const bundle = bundles.make(['true']);
    await expect(run.execute(input({ bundle, id: '../escape' }))).rejects.toThrow(/task id "..\/escape" is not valid/);
    await expect(run.execute(input({ bundle, overrides: { env: ['NOEQUALS'] } }))).rejects.toThrow(/NAME=value/);
    await expect(run.execute(input({ bundle, overrides: { env: [], cwd: 'rel' } }))).rejects.toThrow(/absolute/);
    expect(launcher.launched).toEqual([]);
  });
});

describe('RunDetached (skiff run -d)', () => {
  it('creates the task without stdio, starts it and leaves the shim serving', async () => {
    const { shim, clients, launcher, fakes } = setup();
    const detached = buildContainer({ run: true }, fakes).get(RunDetached);
    const { pid } = await detached.execute(input({ bundle: bundles.make(['sleep', '100']) }));
    expect(pid).toBeGreaterThan(0);
    expect(clients.clients[0].calls).toEqual(['create', 'start']);
    expect(await shim.service.state({ id: 'r1', execId: '' })).toMatchObject({ status: 'running', stdout: '' });
    expect(launcher).toMatchObject({ detached: 1, stopped: 0 });
    rmSync(launcher.dirs[0], { recursive: true, force: true });
  });

  it('leaves nothing behind when the task cannot be created', async () => {
    const { shim, launcher, fakes } = setup();
    const detached = buildContainer({ run: true }, fakes).get(RunDetached);
    shim.runtime.failNextCreateWith = new InvalidArgumentError('refused', 'TEST.REFUSED');
    await expect(detached.execute(input({ bundle: bundles.make(['true']) }))).rejects.toThrow(InvalidArgumentError);
    expect(launcher).toMatchObject({ detached: 0, stopped: 1 });
  });

  it('refuses a path that is no bundle before launching anything', async () => {
    const { launcher, fakes } = setup();
    const detached = buildContainer({ run: true }, fakes).get(RunDetached);
    await expect(detached.execute(input({ bundle: '/no/bundle' }))).rejects.toThrow(
      /^bundle \/no\/bundle does not exist$/,
    );
    expect(launcher).toMatchObject({ launched: [], detached: 0, stopped: 0 });
  });
});

function input(over: Partial<RunBundleInput> = {}): RunBundleInput {
  return { id: 'r1', bundle: '', runtime: 'native', terminal: false, rm: false, overrides: { env: [] }, ...over };
}

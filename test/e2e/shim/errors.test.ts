import { status as Code } from '@grpc/grpc-js';
import { join } from 'node:path';
import { google as anyPb } from '../../../src/adapters/shim/wire/proto/generated/google/protobuf/any';
import { task } from '../../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import { BundleFactory } from '../../support/bundles';
import { RuntimeFixture, shimVariants } from '../support/runtimes';
import { RunningShim, startShim } from '../support/shim-process';
import { codeOf, errorOf } from '../support/task-client';

describe.each(shimVariants())('shim error codes end to end (%s over %s)', (runtimeName, transport, makeFixture) => {
  let shim: RunningShim;
  let fx: RuntimeFixture;
  const raw = new BundleFactory();
  let n = 0;
  const nextId = () => `err-${n++}`;

  beforeAll(async () => {
    fx = makeFixture();
    shim = await startShim(runtimeName, [], undefined, undefined, transport);
  });
  afterAll(async () => {
    await shim.stop();
    fx.cleanup();
    raw.cleanup();
  });

  async function running(args = ['sleep', '100']): Promise<string> {
    const id = nextId();
    await shim.client.create({ id, bundle: fx.bundle(args) });
    await shim.client.start(id);
    return id;
  }

  async function cleanup(id: string): Promise<void> {
    await shim.client.kill(id, 9).catch(() => undefined);
    await shim.client.wait(id);
    await shim.client.delete(id);
  }

  it('answers NOT_FOUND, naming the id, for every method on an unknown task', async () => {
    const c = shim.client;
    const calls: Array<[string, Promise<unknown>]> = [
      ['State', c.state('ghost')],
      ['Start', c.start('ghost')],
      ['Delete', c.delete('ghost')],
      ['Wait', c.wait('ghost')],
      ['Kill', c.kill('ghost', 9)],
      ['Pause', c.pause('ghost')],
      ['Resume', c.resume('ghost')],
      ['Pids', c.pids('ghost')],
      ['CloseIO', c.closeIO('ghost')],
      ['ResizePty', c.resizePty('ghost', 1, 1)],
      ['Update', c.update('ghost')],
      ['Stats', c.stats('ghost')],
      ['Checkpoint', c.checkpoint('ghost', '/tmp/x')],
      ['Connect', c.connect('ghost')],
      ['Exec', c.exec('ghost', 'e1', { args: ['true'] })],
    ];
    // Every rejection gets its handler now: over ttrpc all the replies can arrive in one read.
    const errors = calls.map(([name, call]) => [name, errorOf(call)] as const);
    for (const [name, error] of errors) {
      const err = await error;
      expect([name, err.code]).toEqual([name, Code.NOT_FOUND]);
      expect(err.details).toContain('"ghost"');
    }
  });

  it('judges an unknown id before anything else: bad ids and bad arguments still get NOT_FOUND', async () => {
    expect(await codeOf(shim.client.state('../../etc'))).toBe(Code.NOT_FOUND);
    expect(await codeOf(shim.client.state(''))).toBe(Code.NOT_FOUND);
    expect(await codeOf(shim.client.kill('ghost', 999))).toBe(Code.NOT_FOUND);
  });

  it('answers NOT_FOUND for an unknown exec id', async () => {
    const id = await running();
    const err = await errorOf(shim.client.state(id, 'nope'));
    expect(err.code).toBe(Code.NOT_FOUND);
    expect(err.details).toContain('"nope"');
    await cleanup(id);
  });

  it('answers ALREADY_EXISTS to a second Create of an id and a second Exec of an exec id', async () => {
    const id = await running();
    expect(await codeOf(shim.client.create({ id, bundle: fx.bundle(['true']) }))).toBe(Code.ALREADY_EXISTS);
    await shim.client.exec(id, 'e1', { args: ['true'], cwd: '/' });
    const err = await errorOf(shim.client.exec(id, 'e1', { args: ['true'], cwd: '/' }));
    expect(err.code).toBe(Code.ALREADY_EXISTS);
    expect(err.details).toContain('"e1"');
    await shim.client.delete(id, 'e1');
    await cleanup(id);
  });

  it('answers FAILED_PRECONDITION to Start of a running process, Delete of a running one, Resume of a running one', async () => {
    const id = await running();
    const start = await errorOf(shim.client.start(id));
    expect(start.code).toBe(Code.FAILED_PRECONDITION);
    expect(start.details).toContain(`"${id}"`);
    expect(await codeOf(shim.client.delete(id))).toBe(Code.FAILED_PRECONDITION);
    expect(await codeOf(shim.client.resume(id))).toBe(Code.FAILED_PRECONDITION);
    await shim.client.pause(id);
    expect(await codeOf(shim.client.pause(id))).toBe(Code.FAILED_PRECONDITION);
    expect(await codeOf(shim.client.exec(id, 'e9', { args: ['true'] }))).toBe(Code.FAILED_PRECONDITION);
    await shim.client.resume(id);
    await cleanup(id);
  });

  it('answers FAILED_PRECONDITION to Pause of a created task and Start of a stopped one', async () => {
    const id = nextId();
    await shim.client.create({ id, bundle: fx.bundle(['true']) });
    expect(await codeOf(shim.client.pause(id))).toBe(Code.FAILED_PRECONDITION);
    await shim.client.start(id);
    await shim.client.wait(id);
    expect(await codeOf(shim.client.start(id))).toBe(Code.FAILED_PRECONDITION);
    await shim.client.delete(id);
  });

  it('answers NOT_FOUND "process already finished" to a Kill after exit', async () => {
    const id = nextId();
    await shim.client.create({ id, bundle: fx.bundle(['true']) });
    await shim.client.start(id);
    await shim.client.wait(id);
    const err = await errorOf(shim.client.kill(id, 15));
    expect(err.code).toBe(Code.NOT_FOUND);
    expect(err.details).toContain('process already finished');
    await shim.client.delete(id);
  });

  it.each([
    ['an empty id', ''],
    ['an id with a slash', 'a/b'],
    ['a dot-dot id', '..'],
    ['an id with NUL', 'a\u0000b'],
    ['an id with a newline', 'a\nb'],
    ['a 77-character id', 'x'.repeat(77)],
  ])('answers INVALID_ARGUMENT to Create with %s', async (_why, id) => {
    expect(await codeOf(shim.client.create({ id, bundle: fx.bundle(['true']) }))).toBe(Code.INVALID_ARGUMENT);
  });

  it('answers INVALID_ARGUMENT, naming the path, to bundles that cannot run', async () => {
    const bundles: Array<[string, string]> = [
      ['missing directory', '/no/such/bundle'],
      ['a file, not a directory', join(raw.makeWithConfig({}), 'config.json')],
      ['no config.json', raw.root],
      ['malformed JSON', raw.makeWithConfig('{ not json')],
      ['no process.args', raw.makeWithConfig({ ociVersion: '1.0.2', process: { cwd: '/' } })],
      ['a missing program', fx.bundle(['/no/such/program'])],
    ];
    for (const [why, bundle] of bundles) {
      const err = await errorOf(shim.client.create({ id: nextId(), bundle }));
      expect([why, err.code]).toEqual([why, Code.INVALID_ARGUMENT]);
    }
  });

  it('answers INVALID_ARGUMENT to an Exec spec of the wrong type or garbage bytes', async () => {
    const id = await running();
    const wrongType = new anyPb.protobuf.Any({
      type_url: 'types.containerd.io/opencontainers/runtime-spec/1/LinuxResources',
      value: new TextEncoder().encode('{}'),
    });
    const garbage = new anyPb.protobuf.Any({
      type_url: 'types.containerd.io/opencontainers/runtime-spec/1/Process',
      value: new Uint8Array([0, 159, 146, 150]),
    });
    for (const spec of [wrongType, garbage]) {
      const err = await errorOf(shim.client.call('Exec', new task.v2.ExecProcessRequest({ id, exec_id: 'bad', spec })));
      expect(err.code).toBe(Code.INVALID_ARGUMENT);
    }
    expect(await codeOf(shim.client.exec(id, 'bad/id', { args: ['true'] }))).toBe(Code.INVALID_ARGUMENT);
    await cleanup(id);
  });

  it('answers INVALID_ARGUMENT to request bytes that are not a protobuf message, and keeps serving', async () => {
    expect(await shim.client.codeOfBytes('Create', Buffer.from([0xff, 0xff, 0xff, 0xff]))).toBe(Code.INVALID_ARGUMENT);
    expect(await shim.client.codeOfBytes('State', Buffer.from([0x0a, 0x50, 0x41]))).toBe(Code.INVALID_ARGUMENT); // truncated string field
    const id = await running();
    expect((await shim.client.state(id)).pid).toBeGreaterThan(0);
    await cleanup(id);
  });

  it('answers RESOURCE_EXHAUSTED to a message over 4 MiB, and keeps serving', async () => {
    expect(await codeOf(shim.client.create({ id: 'x'.repeat(5 * 1024 * 1024), bundle: fx.bundle(['true']) }))).toBe(
      Code.RESOURCE_EXHAUSTED,
    );
    const id = await running();
    await cleanup(id);
  });

  it('answers INVALID_ARGUMENT to a stdio path that is relative or a directory', async () => {
    expect(
      await codeOf(shim.client.create({ id: nextId(), bundle: fx.bundle(['true']), stdout: 'relative.log' })),
    ).toBe(Code.INVALID_ARGUMENT);
    expect(await codeOf(shim.client.create({ id: nextId(), bundle: fx.bundle(['true']), stdout: shim.dir }))).toBe(
      Code.INVALID_ARGUMENT,
    );
    expect(
      await codeOf(shim.client.create({ id: nextId(), bundle: fx.bundle(['true']), stdin: join(shim.dir, 'absent') })),
    ).toBe(Code.INVALID_ARGUMENT);
  });

  if (runtimeName === 'native') {
    it('answers UNIMPLEMENTED to Checkpoint on native, naming the runc runtime', async () => {
      const id = await running();
      const err = await errorOf(shim.client.checkpoint(id, join(shim.dir, 'cp')));
      expect(err.code).toBe(Code.UNIMPLEMENTED);
      expect(err.details).toContain('--runtime runc');
      await cleanup(id);
    });

    it('applies cpu.shares on native and answers UNIMPLEMENTED for limits it cannot enforce', async () => {
      const id = await running();
      await shim.client.update(id, { cpu: { shares: 256 } });
      const pid = (await shim.client.state(id)).pid;
      const nice = Number(require('node:fs').readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
      expect(nice).toBe(6);
      const err = await errorOf(shim.client.update(id, { memory: { limit: 1048576 } }));
      expect(err.code).toBe(Code.UNIMPLEMENTED);
      expect(err.details).toContain('memory');
      await cleanup(id);
    });

    it('answers FAILED_PRECONDITION to ResizePty of a process without a terminal', async () => {
      const id = await running();
      expect(await codeOf(shim.client.resizePty(id, 80, 24))).toBe(Code.FAILED_PRECONDITION);
      await cleanup(id);
    });
  }
});

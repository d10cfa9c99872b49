import {
  AlreadyExistsError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
} from '../../../src/domain/shared/errors';
import { OCI_PROCESS_TYPE_URL } from '../../../src/application/shim/task/any-payload';
import { TaskClient } from '../../../src/application/shim/ports/task-client.port';
import { BundleFactory } from '../../support/bundles';

const NO_STDIO = { stdin: '', stdout: '', stderr: '', terminal: false };

/** What every TaskClient must do: the in-process fake and the gRPC adapter alike. */
export function taskClientContract(
  name: string,
  open: () => Promise<{ client: TaskClient; close: () => Promise<void> }>,
): void {
  describe(`TaskClient contract: ${name}`, () => {
    const bundles = new BundleFactory();
    let client: TaskClient;
    let close: () => Promise<void>;
    let n = 0;
    const create = (args: string[]) => {
      const id = `k${n++}`;
      return client
        .create({ id, bundle: bundles.make(args), rootfs: [], checkpoint: '', parentCheckpoint: '', ...NO_STDIO })
        .then((r) => ({ id, ...r }));
    };

    beforeAll(async () => ({ client, close } = await open()));
    afterAll(async () => {
      await close();
      bundles.cleanup();
    });

    it('round-trips a lifecycle into the same views', async () => {
      const { id, pid } = await create(['sh', '-c', 'exit 6']);
      expect(await client.state({ id, execId: '' })).toMatchObject({
        id,
        execId: '',
        pid,
        status: 'created',
        exitStatus: 0,
        exitedAt: undefined,
      });
      expect(await client.start({ id, execId: '' })).toEqual({ pid });
      const exit = await client.wait({ id, execId: '' });
      expect(exit.exitStatus).toBe(6);
      expect(exit.exitedAt).toBeInstanceOf(Date);
      const deleted = await client.delete({ id, execId: '' });
      expect(deleted).toEqual({ pid, exitStatus: 6, exitedAt: exit.exitedAt });
    });

    it('marks exec pids and reports stats', async () => {
      const { id } = await create(['sleep', '100']);
      await client.start({ id, execId: '' });
      const spec = {
        typeUrl: OCI_PROCESS_TYPE_URL,
        value: new TextEncoder().encode(
          JSON.stringify({ args: ['sleep', '100'], cwd: '/', env: ['PATH=/usr/bin:/bin'] }),
        ),
      };
      await client.exec({ id, execId: 'x', spec, ...NO_STDIO });
      const { pid } = await client.start({ id, execId: 'x' });
      expect(await client.pids(id)).toContainEqual({ pid, execId: 'x' });
      expect((await client.stats(id)).pidsCurrent).toBeGreaterThanOrEqual(2);
      await client.kill({ id, execId: '', signal: 9, all: true });
      await client.wait({ id, execId: '' });
      await client.kill({ id, execId: 'x', signal: 9, all: false }).catch(() => undefined);
      await client.delete({ id, execId: '' });
    });

    it('raises the same error classes', async () => {
      await expect(client.state({ id: 'ghost', execId: '' })).rejects.toThrow(NotFoundError);
      const { id } = await create(['sleep', '100']);
      await expect(
        create(['true']).then(() =>
          client.create({
            id,
            bundle: bundles.make(['true']),
            rootfs: [],
            checkpoint: '',
            parentCheckpoint: '',
            ...NO_STDIO,
          }),
        ),
      ).rejects.toThrow(AlreadyExistsError);
      await client.start({ id, execId: '' });
      await expect(client.start({ id, execId: '' })).rejects.toThrow(FailedPreconditionError);
      await expect(
        client.create({
          id: 'bad/id',
          bundle: bundles.make(['true']),
          rootfs: [],
          checkpoint: '',
          parentCheckpoint: '',
          ...NO_STDIO,
        }),
      ).rejects.toThrow(InvalidArgumentError);
      await client.kill({ id, execId: '', signal: 9, all: false });
      await client.wait({ id, execId: '' });
      await expect(client.kill({ id, execId: '', signal: 9, all: false })).rejects.toThrow(NotFoundError);
      await client.delete({ id, execId: '' });
    });
  });
}

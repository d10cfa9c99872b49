import { spawnSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { TtrpcTaskClient } from '../../../src/adapters/shim/outbound/task-client/ttrpc-task-client';
import { runcTestsEnabled } from '../../support/runc-bundles';
import { waitFor } from '../../support/wait-for';
import { mkfifo, readFifoInAnotherProcess } from '../support/fifo';
import { BUILT_SHIM, groupServers, keeperPids, layout, start } from './keeper-support';

const { makeBusyboxBundle } = require('../../../scripts/busybox-bundle.js') as {
  makeBusyboxBundle(dir: string, args: string[], options?: object): string;
};

/**
 * A container's stdin through a SIGKILL of the serving process, with the pod keeper in front
 * (docs/keeper-protocol.md, role `I`): the keeper holds a writer on the stdin FIFO as the
 * serving process does, so a process whose client has not opened stdin yet does not read
 * end-of-file when the serving process dies; CloseIO from the new serving process ends it.
 * containerd is played by this test (as in keeper.test.ts); runc and the keeper are real.
 */
const NS = `kstdin${process.pid}`;

if (runcTestsEnabled())
  describe('stdin behind a pod keeper', () => {
    const l = layout(NS);
    let client: TtrpcTaskClient | undefined;
    let readerPid: number | undefined;
    afterAll(() => {
      client?.close();
      if (readerPid !== undefined) spawnSync('kill', ['-9', String(readerPid)]);
      // A test that failed midway leaves a keeper holding the container: it goes too (the container then reads end-of-file).
      for (const pid of [...keeperPids(l.address), ...groupServers(l).map((s) => s.pid)]) process.kill(pid, 'SIGKILL');
      rmSync(l.root, { recursive: true, force: true });
    });

    it('a process whose client has not opened its stdin FIFO reads no end-of-file when the serving process is killed; CloseIO after it does end it', async () => {
      const id = 'cat1';
      const started = start(BUILT_SHIM, l, NS, id, {}, {}, (bundle) => makeBusyboxBundle(bundle, ['cat']));
      expect(started.stderr).toBe('');
      const [stdin, stdout] = ['stdin', 'stdout'].map((name) => join(l.root, `${id}-${name}`));
      [stdin, stdout].forEach(mkfifo);
      // containerd's reader of stdout, there before Create as containerd's copy is.
      const reader = readFifoInAnotherProcess(stdout);
      readerPid = reader.pid;
      client = new TtrpcTaskClient(started.socket);
      const c = client;
      await c.create({
        id,
        bundle: started.bundle,
        stdin,
        stdout,
        stderr: '',
        terminal: false,
        rootfs: [],
        checkpoint: '',
        parentCheckpoint: '',
      });
      const exited = c.wait({ id, execId: '' });
      exited.catch(() => undefined);
      await c.start({ id, execId: '' });
      const [server] = groupServers(l);
      process.kill(server.pid, 'SIGKILL');
      // A call on the same connection: the keeper starts a new serving process, which takes the task over.
      await waitFor('a new serving process', () => groupServers(l).some((s) => s.pid !== server.pid));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await c.state({ id, execId: '' })).status).toBe('running');

      const writer = openSync(stdin, 'w');
      writeSync(writer, 'still here\n');
      closeSync(writer);
      await waitFor('cat to copy its input', () => reader.output() === 'still here\n');
      await c.closeIO({ id, execId: '', stdin: true });
      expect((await exited).exitStatus).toBe(0);
      expect(await reader.done).toBe('still here\n');
      await c.delete({ id, execId: '' });
      await c.shutdown({ id, now: false }).catch(() => undefined);
    });
  });

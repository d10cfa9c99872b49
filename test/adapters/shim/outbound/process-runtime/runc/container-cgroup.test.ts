import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { ContainerCgroup } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/container-cgroup';
import { runcTestsEnabled } from '../../../../../support/runc-bundles';

describe('ContainerCgroup (whether `runc kill --all` would find anything to kill)', () => {
  it('is never empty for a cgroup that lists a live process (this one)', () => {
    expect(ContainerCgroup.of(process.pid).isEmpty()).toBe(false);
  });

  it('is never empty when the cgroup could not be learnt: the runc call is kept', () => {
    expect(ContainerCgroup.of(2 ** 22 + 1).isEmpty()).toBe(false);
  });

  // A cgroup of its own needs root, as the runc suites do.
  if (runcTestsEnabled())
    it('is empty once the only process of its own cgroup has exited, and not before', async () => {
      const v1 = existsSync('/sys/fs/cgroup/devices');
      const dir = join(v1 ? '/sys/fs/cgroup/devices' : '/sys/fs/cgroup', `skiff-cgroup-test-${process.pid}`);
      mkdirSync(dir);
      try {
        // The shell moves itself into the cgroup, says so, then becomes the sleep.
        const child = spawn('sh', ['-c', `echo $$ > ${join(dir, 'cgroup.procs')} && echo in && exec sleep 30`], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        await new Promise((resolve) => child.stdout.once('data', resolve));
        const cgroup = ContainerCgroup.of(child.pid as number);
        expect(cgroup.isEmpty()).toBe(false);
        if (v1) expect(cgroup.memoryV1Dir).toMatch(/^\/sys\/fs\/cgroup\/memory\//);
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
        expect(cgroup.isEmpty()).toBe(true);
      } finally {
        rmdirSync(dir);
      }
    });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliHome } from '../support/skiff-home';

/**
 * `skiff containerd config` and `skiff containerd runtimeclass` as an operator runs them; the
 * printed section is fed to a real containerd 1.6 by test/e2e/package/install.test.ts and
 * by every CRI suite (scripts/containerd/config.js).
 */
const home = new CliHome();
const bin = mkdtempSync(join(tmpdir(), 'skiff-ctrd-bin-'));
afterAll(() => {
  home.remove();
  rmSync(bin, { recursive: true, force: true });
});

/** A `containerd` on the PATH whose --version says `line`, as containerd's builds print it. */
function containerdSaying(line: string): NodeJS.ProcessEnv {
  writeFileSync(join(bin, 'containerd'), `#!/bin/sh\necho '${line}'\n`, { mode: 0o755 });
  return { PATH: `${bin}:/usr/bin:/bin` };
}

const V2 = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.skiff]';
const V3 = '[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.skiff]';

describe('skiff containerd config', () => {
  it.each([
    ['containerd github.com/containerd/containerd v1.6.20~ds1 1.6.20~ds1-1+b1', V2],
    ['containerd containerd.io 1.7.27 05044ec0a9a75232cad458027ca83437aae3f4da', V2],
    ['containerd github.com/containerd/containerd/v2 v2.1.4 75cb2b7193e4e490e9fbdc236c0e811ccaba3376', V3],
  ])('follows `containerd --version`: %s', async (line, table) => {
    const result = await home.run(['containerd', 'config'], { env: containerdSaying(line) });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.split('\n').slice(1)).toEqual([table, '  runtime_type = "io.containerd.skiff.v2"', '']);
  });

  it('--format and --handler choose without asking containerd', async () => {
    const result = await home.run(['containerd', 'config', '--format', 'v3', '--handler', 'skiff-fast'], {
      env: { PATH: '/nonexistent' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.skiff-fast]\n');
  });

  it('without a containerd to ask: one line saying to pass --format, exit 3', async () => {
    const result = await home.run(['containerd', 'config'], { env: { PATH: bin.replace(/$/, '-none') } });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'skiff: cannot run `containerd --version` (is containerd on PATH?): pass --format v2 (containerd 1.6/1.7) or v3 (containerd 2.x)\n',
    });
  });

  it('a handler that is no DNS label: one line, exit 3', async () => {
    const result = await home.run(['containerd', 'config', '--format', 'v2', '--handler', 'Skiff_1']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^skiff: --handler "Skiff_1" is not a DNS label/);
  });
});

describe('skiff containerd runtimeclass', () => {
  it('prints the RuntimeClass, its name and handler as asked', async () => {
    expect(await home.run(['containerd', 'runtimeclass'])).toEqual({
      code: 0,
      stdout: 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: skiff\nhandler: skiff\n',
      stderr: '',
    });
    const named = await home.run(['containerd', 'runtimeclass', '--name', 'sandboxed', '--handler', 'skiff-fast']);
    expect(named.stdout).toBe(
      'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: sandboxed\nhandler: skiff-fast\n',
    );
  });
});

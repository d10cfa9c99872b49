import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliHome } from '../support/skiff-home';
import { parseTomlRuncOptions } from '../../../src/adapters/shim/outbound/process-runtime/runc/runc-options-toml';

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

/**
 * A config.toml that names CRI's default runtime and no version (so `containerd --version`
 * chooses the format): only skiff's section is printed.
 */
const COMPLETE = join(bin, 'complete.toml');
writeFileSync(
  COMPLETE,
  '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n',
);

/** `skiff containerd config ARGS` against COMPLETE. */
const printed = (args: string[], options?: Parameters<CliHome['run']>[1]) =>
  home.run(['containerd', 'config', '--config-file', COMPLETE, ...args], options);

const V2 = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.skiff]';
const V3 = '[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.skiff]';

describe('skiff containerd config', () => {
  it.each([
    ['containerd github.com/containerd/containerd v1.6.20~ds1 1.6.20~ds1-1+b1', V2],
    ['containerd containerd.io 1.7.27 05044ec0a9a75232cad458027ca83437aae3f4da', V2],
    ['containerd github.com/containerd/containerd/v2 v2.1.4 75cb2b7193e4e490e9fbdc236c0e811ccaba3376', V3],
  ])('follows `containerd --version`: %s', async (line, table) => {
    const result = await printed([], { env: containerdSaying(line) });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.split('\n').slice(1)).toEqual([table, '  runtime_type = "io.containerd.skiff.v2"', '']);
    // The first line names the containerd it was printed for.
    const version = /v?(\d+\.\d+\.\d+)/.exec(line)?.[1];
    expect(result.stdout.split('\n')[0]).toBe(
      `# skiff's runtime handler (containerd ${version}, as \`containerd --version\` says: config.toml version = ${table === V2 ? 2 : 3}): append to /etc/containerd/config.toml once, then restart containerd`,
    );
  });

  it("--runc-runtime-type names skiff's shim by path under runc's runtime type, with runc's own options", async () => {
    const shim = join(__dirname, '../../../bin/containerd-shim-skiff-v2');
    const result = await printed(['--runc-runtime-type', '--systemd-cgroup', '--oci-runtime', 'crun'], {
      env: containerdSaying('containerd github.com/containerd/containerd/v2 v2.1.9+unknown 75cb2b7193e4e490e9fbdc'),
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.split('\n').slice(1)).toEqual([
      V3,
      "# under runc's runtime type, for containerd 2.0/2.1 to tell kubelet the handler's features (hostUsers:",
      "# false needs them); CRI's restore from a checkpoint archive fails this way (docs/cri.md)",
      '  runtime_type = "io.containerd.runc.v2"',
      `  runtime_path = ${JSON.stringify(shim)}`,
      `  [${V3.slice(1, -1)}.options]`,
      '    BinaryName = "crun"',
      '    SystemdCgroup = true',
      '',
    ]);
  });

  it('--sandboxer shim gives the handler sandboxer = "shim" for containerd 2.3 (pods without a pause container)', async () => {
    const result = await printed(['--handler', 'skiff-sandbox', '--sandboxer', 'shim'], {
      env: containerdSaying(
        'containerd github.com/containerd/containerd/v2 v2.3.4 0f7a3c9e4b1f1b0fb5d5e0e7dc3a2f0cb4a1',
      ),
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.split('\n').slice(1)).toEqual([
      V3.replace('runtimes.skiff', 'runtimes.skiff-sandbox'),
      '  runtime_type = "io.containerd.skiff.v2"',
      '# pods without a pause container: skiff serves the Sandbox API, the pod keeper holds the namespaces',
      '# (containerd 2.3; docs/cri.md says what a pod spec can ask of it)',
      '  sandboxer = "shim"',
      '',
    ]);
  });

  it("--sandboxer shim in a version 2 config read by containerd 2.3: 1.7's sandbox_mode, which 2.x reads as sandboxer", async () => {
    const result = await printed(['--format', 'v2', '--sandboxer', 'shim'], {
      env: containerdSaying(
        'containerd github.com/containerd/containerd/v2 v2.3.4 0f7a3c9e4b1f1b0fb5d5e0e7dc3a2f0cb4a1',
      ),
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`${V2}\n  runtime_type = "io.containerd.skiff.v2"\n`);
    expect(result.stdout).toContain('\n  sandbox_mode = "shim"\n');
    expect(result.stdout).not.toContain('sandboxer');
  });

  it.each([
    [
      'containerd 1.x',
      ['--format', 'v2', '--sandboxer', 'shim'],
      'containerd github.com/containerd/containerd v1.6.20~ds1 1.6.20~ds1-1+b1',
      /^skiff: --sandboxer shim needs containerd 2.3: containerd 1.6.20 runs pods with the pause container only/,
    ],
    [
      'no containerd to ask of a version 2 config',
      ['--format', 'v2', '--sandboxer', 'shim'],
      undefined,
      /^skiff: --sandboxer shim needs containerd 2.3, and `containerd --version` does not say which containerd reads this version 2 config: pass --format v3/,
    ],
    [
      '--runc-runtime-type',
      ['--format', 'v3', '--sandboxer', 'shim', '--runc-runtime-type'],
      undefined,
      /^skiff: --sandboxer shim and --runc-runtime-type do not go together/,
    ],
  ])(
    '--sandboxer shim where containerd cannot take it (%s): one line, exit 2 (usage), nothing printed',
    async (_, args, line, said) => {
      const result = await printed(args as string[], {
        env: line === undefined ? { PATH: bin.replace(/$/, '-none') } : containerdSaying(line as string),
      });
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(said as RegExp);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.code).toBe(2);
    },
  );

  it('names containerd 2.3.4 (the supported LTS) and prints version 3 for it', async () => {
    const result = await printed([], {
      env: containerdSaying(
        'containerd github.com/containerd/containerd/v2 v2.3.4 0f7a3c9e4b1f1b0fb5d5e0e7dc3a2f0cb4a1f2d3',
      ),
    });
    expect(result.stdout.split('\n').slice(0, 2)).toEqual([
      "# skiff's runtime handler (containerd 2.3.4, as `containerd --version` says: config.toml version = 3): append to /etc/containerd/config.toml once, then restart containerd",
      V3,
    ]);
  });

  it("prints runc's handler too for containerd 1.x when the config leaves it to the defaults (Debian's config.toml)", async () => {
    const debian = join(bin, 'debian.toml');
    writeFileSync(
      debian,
      'version = 2\n\n[plugins]\n  [plugins."io.containerd.grpc.v1.cri"]\n    [plugins."io.containerd.grpc.v1.cri".cni]\n      bin_dir = "/usr/lib/cni"\n',
    );
    const v2 = await home.run(['containerd', 'config', '--format', 'v2', '--config-file', debian]);
    expect(v2).toMatchObject({ code: 0, stderr: '' });
    expect(v2.stdout).toContain(`${V2}\n  runtime_type = "io.containerd.skiff.v2"\n`);
    expect(v2.stdout).toContain(
      '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n',
    );
    // containerd 2.x merges a config's runtimes with its defaults: skiff's alone.
    const v3 = await home.run(['containerd', 'config', '--format', 'v3', '--config-file', debian]);
    expect(v3.stdout.split('\n').slice(1)).toEqual([V3, '  runtime_type = "io.containerd.skiff.v2"', '']);
  });

  it("follows the config file's own version over containerd's: 2.x reads a version 2 file whole", async () => {
    const v2File = join(bin, 'v2.toml');
    writeFileSync(v2File, 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n');
    const env = containerdSaying('containerd github.com/containerd/containerd/v2 v2.3.4 deadbeef');
    const result = await home.run(['containerd', 'config', '--config-file', v2File], { env });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.split('\n').slice(1)).toEqual([V2, '  runtime_type = "io.containerd.skiff.v2"', '']);
    expect(result.stdout.split('\n')[0]).toContain(
      `(containerd 1.6/1.7, or 2.x, as ${v2File} says: config.toml version = 2)`,
    );
  });

  it('says the version first when there is no config file yet', async () => {
    const result = await home.run(['containerd', 'config', '--format', 'v2', '--config-file', join(bin, 'none.toml')]);
    expect(result.stdout.split('\n').slice(1, 4)).toEqual([
      'version = 2',
      V2,
      '  runtime_type = "io.containerd.skiff.v2"',
    ]);
    expect(result.stdout).toContain('containerd.runtimes.runc]');
  });

  it('prints nothing, and says so, when the config has the handler already: a second append would break it', async () => {
    const configured = join(bin, 'configured.toml');
    writeFileSync(configured, `version = 2\n${V2}\n  runtime_type = "io.containerd.skiff.v2"\n`);
    const result = await home.run(['containerd', 'config', '--format', 'v2', '--config-file', configured]);
    expect(result).toEqual(expect.objectContaining({ code: 0, stdout: '' }));
    expect(result.stderr).toBe(
      `${configured} has the runtime handler skiff already: nothing to add (--config-file /dev/null prints the section on its own)\n`,
    );
  });

  it('a config that is not TOML: one line naming it, exit 3', async () => {
    const broken = join(bin, 'broken.toml');
    writeFileSync(broken, '[plugins\n');
    const result = await home.run(['containerd', 'config', '--format', 'v2', '--config-file', broken]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`${broken} is not TOML containerd can read`);
  });

  it('--format and --handler choose without asking containerd', async () => {
    const result = await home.run(
      ['containerd', 'config', '--config-file', COMPLETE, '--format', 'v3', '--handler', 'skiff-fast'],
      {
        env: { PATH: '/nonexistent' },
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.skiff-fast]\n');
  });

  it('--systemd-cgroup gives the handler an options table SystemdCgroup = true, in both formats', async () => {
    const v2 = await printed(['--format', 'v2', '--systemd-cgroup']);
    expect(v2).toMatchObject({ code: 0, stderr: '' });
    expect(v2.stdout.split('\n').slice(1)).toEqual([
      V2,
      '  runtime_type = "io.containerd.skiff.v2"',
      `  ${V2.replace(/]$/, '.options]')}`,
      '    SystemdCgroup = true',
      '# containerd 1.6 does not pass this table to skiff (1.7 does): there skiff takes the systemd driver',
      "# from each pod's cgroupsPath, which kubelet's systemd cgroup driver makes a slice:prefix:name",
      '',
    ]);
    const v3 = await printed(['--format', 'v3', '--systemd-cgroup']);
    expect(v3.stdout.split('\n').slice(1)).toEqual([
      V3,
      '  runtime_type = "io.containerd.skiff.v2"',
      `  ${V3.replace(/]$/, '.options]')}`,
      '    SystemdCgroup = true',
      '',
    ]);
  });

  it('--oci-runtime names /etc/skiff/NAME.toml in the options and prints its text after, as comments', async () => {
    const result = await printed(['--format', 'v3', '--oci-runtime', 'crun']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.split('\n').slice(1)).toEqual([
      V3,
      '  runtime_type = "io.containerd.skiff.v2"',
      `  ${V3.replace(/]$/, '.options]')}`,
      '    ConfigPath = "/etc/skiff/crun.toml"',
      "# /etc/skiff/crun.toml, which the handler's ConfigPath names, must hold (write it as root before the first pod):",
      '#   BinaryName = "crun"',
      '# e.g.: mkdir -p /etc/skiff && printf \'BinaryName = "crun"\\n\' > /etc/skiff/crun.toml',
      '',
    ]);
    const both = await home.run([
      'containerd',
      'config',
      '--format',
      'v2',
      '--oci-runtime',
      'crun',
      '--systemd-cgroup',
    ]);
    expect(both.stdout).toContain(`${V2.replace(/]$/, '.options]')}\n    ConfigPath = "/etc/skiff/crun.toml"\n#`);
    expect(both.stdout).toContain('\n#   BinaryName = "crun"\n#   SystemdCgroup = true\n');
    expect(both.stdout).toContain('printf \'BinaryName = "crun"\\nSystemdCgroup = true\\n\' > /etc/skiff/crun.toml\n');
  });

  it('the printed file is what the shell line writes, and TOML skiff reads', async () => {
    const both = await home.run([
      'containerd',
      'config',
      '--format',
      'v2',
      '--oci-runtime',
      'crun',
      '--systemd-cgroup',
    ]);
    const printf = /printf '([^']*)'/.exec(both.stdout)?.[1] ?? '';
    const text = printf.replace(/\\n/g, '\n');
    expect(text).toBe('BinaryName = "crun"\nSystemdCgroup = true\n');
    expect(parseTomlRuncOptions(text, 'f')).toEqual({ BinaryName: 'crun', SystemdCgroup: true });
  });

  it('an --oci-runtime that is no program name: one line, exit 3', async () => {
    const result = await printed(['--format', 'v2', '--oci-runtime', '/usr/bin/crun']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^skiff: --oci-runtime "\/usr\/bin\/crun" is not a program name/);
  });

  it('without a containerd to ask: one line saying to pass --format, exit 3', async () => {
    const result = await printed([], {
      env: { PATH: bin.replace(/$/, '-none') },
    });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'skiff: cannot run `containerd --version` (is containerd on PATH?): pass --format v2 (containerd 1.6/1.7) or v3 (containerd 2.x)\n',
    });
  });

  it('a handler that is no DNS label: one line, exit 3', async () => {
    const result = await printed(['--format', 'v2', '--handler', 'Skiff_1']);
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

describe('skiff containerd unit', () => {
  it("prints the template unit with the config's state and address, and this package's shim binary", async () => {
    const config = join(bin, 'moved.toml');
    writeFileSync(config, 'version = 2\nstate = "/run/ctrd"\n\n[grpc]\n  address = "/run/ctrd/ctrd.sock"\n');
    const result = await home.run(['containerd', 'unit', '--config-file', config], { env: { SKIFF_NODE: '' } });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const shim = join(__dirname, '../../../bin/containerd-shim-skiff-v2');
    expect(result.stdout).toContain(
      `\nExecStart=${shim} -namespace %i -address /run/ctrd/ctrd.sock -state /run/ctrd serve\n`,
    );
    expect(result.stdout).toContain('\nType=notify\n');
    // Ordered after containerd and before kubelet, bound to neither.
    expect(result.stdout).toMatch(/\nAfter=containerd\.service\nBefore=kubelet\.service\n/);
    expect(result.stdout).not.toMatch(/^(Requires|BindsTo|PartOf)=/m);
    expect(result.stdout).toContain('\nKillMode=process\n');
    expect(result.stdout).toContain('\nWantedBy=multi-user.target\n');
    expect(result.stdout).not.toContain('SKIFF_NODE');
  });

  it("takes containerd's defaults without a config, and SKIFF_NODE from the environment", async () => {
    const result = await home.run(['containerd', 'unit', '--config-file', join(bin, 'none.toml')], {
      env: { SKIFF_NODE: '/opt/node/bin/node' },
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(' -address /run/containerd/containerd.sock -state /run/containerd serve\n');
    expect(result.stdout).toContain('\nEnvironment=SKIFF_NODE=/opt/node/bin/node\n');
  });

  it('refuses a path systemd would read otherwise, in one line', async () => {
    const result = await home.run([
      'containerd',
      'unit',
      '--config-file',
      join(bin, 'none.toml'),
      '--state',
      '/run/my state',
    ]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--state "/run/my state" must be an absolute path without spaces');
  });
});

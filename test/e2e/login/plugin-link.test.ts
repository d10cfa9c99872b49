import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliHome, finished, ROOT } from '../support/skiff-home';

jest.setTimeout(90_000);

const EXAMPLE = join(ROOT, 'examples', 'plugin-hello');

/**
 * What a linked plugin costs the commands that are not its own: with the manifest that
 * `skiff plugins link` writes, none of its files is loaded, nor the TypeScript compiler
 * for its tsconfig.json.
 */
describe('skiff plugins link', () => {
  const home = new CliHome();
  afterAll(() => home.remove());

  /** A copy of the example as its author has it: sources, tsconfig.json, compiled commands; no manifest. */
  function pluginCopy(name: string): string {
    const dir = join(home.dir, name);
    mkdirSync(dir, { recursive: true });
    for (const file of ['package.json', 'tsconfig.json', 'src', 'dist'])
      cpSync(join(EXAMPLE, file), join(dir, file), { recursive: true });
    return dir;
  }

  /** A package-lock.json without dependencies: `plugins link` then runs npm install, which fetches nothing. */
  function writeLockfile(plugin: string): void {
    writeFileSync(
      join(plugin, 'package-lock.json'),
      JSON.stringify({
        name: 'skiff-plugin-hello',
        version: '0.1.0',
        lockfileVersion: 3,
        requires: true,
        packages: { '': { name: 'skiff-plugin-hello', version: '0.1.0' } },
      }),
    );
  }

  /** What `skiff <args>` loaded: every module file required. */
  async function loadedBy(args: string[]): Promise<{ code: number | null; files: string[] }> {
    const record = join(home.dir, 'loaded.json');
    const preload = join(home.dir, 'record-loaded.js');
    writeFileSync(
      preload,
      `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(Object.keys(require.cache))));`,
    );
    const child = spawn(process.execPath, ['-r', preload, join(ROOT, 'bin', 'run.js'), ...args], { env: home.env });
    const { code } = await finished(child);
    return { code, files: JSON.parse(readFileSync(record, 'utf8')) as string[] };
  }

  it("writes the plugin's manifest: other commands then load none of its files, nor TypeScript", async () => {
    const plugin = pluginCopy('linked');
    const link = await home.run(['plugins', 'link', plugin, '--no-install']);
    expect(link.code).toBe(0);
    expect(link.stdout).toContain(`Linked ${plugin}; wrote its oclif.manifest.json (hello)`);
    const manifest = JSON.parse(readFileSync(join(plugin, 'oclif.manifest.json'), 'utf8'));
    expect(Object.keys(manifest.commands)).toEqual(['hello']);
    expect(manifest.commands.hello.flags).toHaveProperty('context');

    for (const args of [['--help'], ['config', 'current-context']]) {
      const { files } = await loadedBy(args);
      expect(files.filter((f) => f.startsWith(plugin))).toEqual([]);
      expect(files.filter((f) => /node_modules\/(typescript|ts-node|tsx)\//.test(f))).toEqual([]);
    }
    expect((await home.run(['--help'])).stdout).toMatch(/^ {2}hello +Say who you are signed in as/m);
    // Its own command loads it, from the compiled JavaScript (here it stops at once: nobody is signed in).
    const hello = await loadedBy(['hello']);
    expect(hello.code).toBe(3);
    expect(hello.files).toContain(join(plugin, 'dist', 'commands', 'hello.js'));
    expect(hello.files.filter((f) => /node_modules\/typescript\//.test(f))).toEqual([]);
    expect((await home.run(['plugins', 'uninstall', 'skiff-plugin-hello'])).code).toBe(0);
  });

  it('says first that it runs npm install in the plugin, which takes a while', async () => {
    const plugin = pluginCopy('to-install');
    writeLockfile(plugin);
    const link = await home.run(['plugins', 'link', plugin]);
    expect(link.code).toBe(0);
    expect(link.stderr.split('\n')[0]).toBe(
      `Running npm install in ${plugin} (usually 10 to 30 s; --no-install skips it)...`,
    );
    expect(existsSync(join(plugin, 'oclif.manifest.json'))).toBe(true);
    expect((await home.run(['plugins', 'uninstall', 'skiff-plugin-hello'])).code).toBe(0);
  });

  it('`plugins manifest` writes the manifest of a plugin for its build and package', async () => {
    const plugin = pluginCopy('built');
    const written = await home.run(['plugins', 'manifest', plugin]);
    expect(written).toMatchObject({
      code: 0,
      stdout: `wrote ${join(plugin, 'oclif.manifest.json')} (1 command: hello)\n`,
    });
    const notPlugin = await home.run(['plugins', 'manifest', home.dir]);
    expect(notPlugin).toMatchObject({
      code: 2,
      stderr: `skiff: ${home.dir} has no package.json: give the plugin's directory (where its package.json is)\n`,
    });
  });

  it('`plugins manifest` never writes through a link at the manifest', async () => {
    const plugin = pluginCopy('manifest-link');
    const elsewhere = join(home.dir, 'elsewhere.json');
    symlinkSync(elsewhere, join(plugin, 'oclif.manifest.json'));
    const written = await home.run(['plugins', 'manifest', plugin]);
    expect(written.code).toBe(3);
    expect(written.stderr).toContain('is a symbolic link');
    expect(existsSync(elsewhere)).toBe(false);
  });

  it('npm install failing in the plugin: exit 1, one line, nothing linked', async () => {
    const plugin = pluginCopy('install-fails');
    const pkg = JSON.parse(readFileSync(join(plugin, 'package.json'), 'utf8'));
    writeFileSync(join(plugin, 'package.json'), JSON.stringify({ ...pkg, scripts: { preinstall: 'exit 7' } }));
    writeLockfile(plugin);
    const link = await home.run(['plugins', 'link', plugin]);
    expect(link.code).toBe(1);
    expect(link.stderr).toContain(
      `skiff: npm install in ${plugin} failed, nothing was linked: run \`npm install\` there to see why (or link with --no-install)\n`,
    );
    expect(existsSync(join(plugin, 'oclif.manifest.json'))).toBe(false);
    expect((await home.run(['plugins'])).stdout).not.toContain('skiff-plugin-hello');
  });
});

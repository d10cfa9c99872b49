import { spawnSync, SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CliHome } from '../e2e/support/skiff-home';
import { documentedFiles, writeFiles } from '../support/documented-files';

// Builds and tests a plugin with TypeScript and jest, then links it: a while on a loaded machine.
jest.setTimeout(180_000);

const ROOT = join(__dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'plugins.md');

describe('docs/plugins.md, "A minimal plugin, file by file", as a reader would copy it', () => {
  const home = new CliHome();
  const plugin = join(home.dir, 'plugin');
  const files = documentedFiles(readFileSync(DOC, 'utf8'));
  afterAll(() => home.remove());

  /** `npm run <script>` in the plugin, skiff's tools in its node_modules as `npm install` would put them. */
  const npmRun = (script: string): SpawnSyncReturns<string> =>
    spawnSync('npm', ['run', '--silent', script], {
      cwd: plugin,
      env: { ...home.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
      encoding: 'utf8',
    });

  beforeAll(() => {
    writeFiles(plugin, files);
    // What `npm install` gives the plugin, here from this checkout: skiff-cli is the
    // checkout itself (built), the tools are skiff's own.
    const modules = join(plugin, 'node_modules');
    mkdirSync(join(modules, '@types'), { recursive: true });
    mkdirSync(join(modules, '.bin'));
    symlinkSync(ROOT, join(modules, 'skiff-cli'));
    for (const name of ['typescript', 'jest', 'ts-jest', '@types/node', '@types/jest']) {
      symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
    }
    symlinkSync(join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), join(modules, '.bin', 'tsc'));
    symlinkSync(join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), join(modules, '.bin', 'jest'));
    symlinkSync(join(ROOT, 'bin', 'run.js'), join(modules, '.bin', 'skiff'));
  });

  it('lists the five files of a plugin', () => {
    expect([...files.keys()].sort()).toEqual([
      'jest.config.js',
      'package.json',
      'src/commands/hello.ts',
      'test/hello.test.ts',
      'tsconfig.json',
    ]);
  });

  it('pins the versions skiff is built and tested with', () => {
    const skiff = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const documented = JSON.parse(files.get('package.json') ?? '{}');
    for (const name of ['typescript', 'ts-jest', 'jest', '@types/jest']) {
      expect([name, documented.devDependencies[name]]).toEqual([name, skiff.devDependencies[name]]);
    }
    expect(documented.devDependencies['skiff-cli']).toBe(documented.peerDependencies['skiff-cli']);
  });

  it('builds (dist/ and the manifest) and its test passes', () => {
    const build = npmRun('build');
    expect({ status: build.status, stderr: build.stderr }).toEqual({ status: 0, stderr: '' });
    expect(existsSync(join(plugin, 'dist', 'commands', 'hello.js'))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(plugin, 'oclif.manifest.json'), 'utf8'));
    expect(Object.keys(manifest.commands.hello.flags).sort()).toEqual(['context', 'domain', 'greeting', 'shout']);

    const test = npmRun('test');
    expect({ status: test.status, passed: /Tests:\s+2 passed, 2 total/.test(test.stderr) }).toEqual({
      status: 0,
      passed: true,
    });
  });

  it('links into skiff: `skiff hello` with its flags in the help, refusing without a domain', async () => {
    expect((await home.run(['plugins', 'link', plugin, '--no-install'])).code).toBe(0);
    const help = await home.run(['hello', '--help']);
    expect(help.stdout).toContain('Greet whoever is signed in on the active context.');
    expect(help.stdout).toMatch(/-s, --shout +In capitals\./);
    expect(help.stdout).toMatch(/--greeting=<value> +\[default: Hello\] The word to greet with\./);
    const run = await home.run(['hello', '--shout']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^skiff: cannot determine the domain/);
    expect((await home.run(['plugins', 'uninstall', 'skiff-plugin-minimal'])).code).toBe(0);
  });
});

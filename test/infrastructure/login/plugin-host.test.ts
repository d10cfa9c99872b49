import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../e2e/support/skiff-home';

/**
 * The plugin host (src/infrastructure/login/plugin-host.ts, built in dist/): a plugin
 * outside skiff's tree that requires `skiff-cli/...` gets the running skiff, whatever it
 * has in its own node_modules; `skiff` is another npm package, which it keeps.
 */
describe('sharePackageWithPlugins', () => {
  let plugin: string;

  beforeAll(() => {
    plugin = mkdtempSync(join(tmpdir(), 'skiff-plugin-host-'));
    // The plugin's own copies: an older skiff-cli (its dev dependency) and the unrelated `skiff`.
    for (const name of ['skiff-cli', 'skiff']) {
      const dir = join(plugin, 'node_modules', name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name, version: '0.0.1', exports: { '.': './index.js', './plugin': './index.js' } }),
      );
      writeFileSync(join(dir, 'index.js'), `module.exports = { copy: ${JSON.stringify(`the plugin's ${name}`)} };\n`);
    }
    writeFileSync(
      join(plugin, 'command.js'),
      [
        "const api = require('skiff-cli/plugin');",
        "const raft = require('skiff');",
        'console.log(JSON.stringify({',
        "  api: require.resolve('skiff-cli/plugin'),",
        "  hasCommand: typeof api.SkiffCommand === 'function',",
        '  raft: raft.copy,',
        '}));',
      ].join('\n'),
    );
  });

  afterAll(() => rmSync(plugin, { recursive: true, force: true }));

  it("resolves skiff-cli/plugin to the running skiff and leaves the plugin's `skiff` alone", () => {
    const host = join(ROOT, 'dist/infrastructure/login/plugin-host.js');
    const script = `require('reflect-metadata'); require(${JSON.stringify(host)}).sharePackageWithPlugins(); require(${JSON.stringify(join(plugin, 'command.js'))});`;
    const result = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      api: join(ROOT, 'dist/adapters/plugin-api/index.js'),
      hasCommand: true,
      raft: "the plugin's skiff",
    });
  });
});

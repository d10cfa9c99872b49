import { Args, Errors, Flags } from '@oclif/core';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InternalError } from '../../../domain/shared/errors';
import { BaseCommand } from '../../shared/inbound/cli/base-command';
import { checkPluginDir, writePluginManifest } from '../../login/inbound/cli/plugin-manifest';

/**
 * `skiff plugins link`: oclif's, with what it does said first (`npm install` in the
 * plugin takes a while), and the plugin's oclif.manifest.json written afterwards so that
 * the linked plugin costs the other commands nothing.
 */
export default class PluginsLink extends BaseCommand {
  static override summary = 'Use a plugin from its working directory (development).';
  static override description =
    "Runs `npm install` in the plugin's directory when it has a package-lock.json (--no-install skips it), adds " +
    "the directory to skiff's plugins, and writes the plugin's oclif.manifest.json (see `skiff plugins " +
    'manifest`): link again after adding a command or changing flags. A linked plugin overrides an installed ' +
    'one of the same name. skiff runs its compiled JavaScript, never its TypeScript sources.';
  static override examples = [
    '<%= config.bin %> plugins link .',
    '<%= config.bin %> plugins link ../my-plugin --no-install',
  ];
  static override args = {
    path: Args.string({ default: '.', description: "The plugin's directory (holds its package.json)." }),
  };
  static override flags = {
    install: Flags.boolean({
      allowNo: true,
      default: true,
      description: "Run `npm install` in the plugin's directory first.",
    }),
    verbose: Flags.boolean({ char: 'v', description: "Show npm's output." }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PluginsLink);
    const dir = resolve(args.path);
    checkPluginDir(dir);
    const installs = flags.install && existsSync(join(dir, 'package-lock.json'));
    if (installs) {
      this.logToStderr(`Running npm install in ${dir} (usually 10 to 30 s; --no-install skips it)...`);
    }
    const oclifs = await this.config.plugins.get('@oclif/plugin-plugins')?.findCommand('plugins:link');
    if (oclifs === undefined)
      throw new InternalError('oclif\'s plugins plugin has no "plugins link"', 'PLUGINS.NO_LINK');
    const argv = [dir, flags.install ? '--install' : '--no-install', ...(flags.verbose ? ['--verbose'] : [])];
    try {
      await oclifs.run(argv, this.config);
    } catch (err) {
      // oclif marks npm's failure as a usage error (exit 2, "see --help"); it is not one.
      if (!installs || err instanceof Errors.ExitError) throw err;
      throw new InternalError(
        `npm install in ${dir} failed, nothing was linked: run \`npm install\` there to see why (or link with --no-install)`,
        'PLUGINS.INSTALL_FAILED',
      );
    }
    const written = await writePluginManifest(dir);
    this.log(`Linked ${dir}; wrote its oclif.manifest.json (${written.commands.join(', ')}).`);
  }
}

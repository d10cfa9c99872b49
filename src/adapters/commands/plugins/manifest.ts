import { Args } from '@oclif/core';
import { resolve } from 'node:path';
import { BaseCommand } from '../../shared/inbound/cli/base-command';
import { writePluginManifest } from '../../login/inbound/cli/plugin-manifest';

/** `skiff plugins manifest [dir]`: a plugin's oclif.manifest.json, for its build and its package. */
export default class PluginsManifest extends BaseCommand {
  static override summary = "Write a plugin's oclif.manifest.json, so that skiff starts without loading the plugin.";
  static override description =
    'Without the manifest, every skiff command loads every command file of the plugin before it starts. Run it ' +
    'after the plugin\'s build (its package.json: `"build": "tsc && skiff plugins manifest"`) and ship the file ' +
    'in the package. `skiff plugins link` writes it too. A manifest older than the commands shows their old help.';
  static override examples = ['<%= config.bin %> plugins manifest', '<%= config.bin %> plugins manifest ../my-plugin'];
  static override args = {
    path: Args.string({ default: '.', description: "The plugin's directory (holds its package.json)." }),
  };

  async run(): Promise<void> {
    const { args } = await this.parse(PluginsManifest);
    const written = await writePluginManifest(resolve(args.path));
    this.log(
      `wrote ${written.file} (${written.commands.length === 1 ? '1 command' : `${written.commands.length} commands`}: ${written.commands.join(', ')})`,
    );
  }
}

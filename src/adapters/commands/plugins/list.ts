import { Flags } from '@oclif/core';
import { BaseCommand } from '../../shared/inbound/cli/base-command';

/**
 * `skiff plugins list`: oclif's plugins plugin lists plugins as `skiff plugins`;
 * the verb is kept beside install, link, update and uninstall.
 */
export default class PluginsList extends BaseCommand {
  static override summary = 'List installed and linked plugins (the same as `skiff plugins`).';
  static override examples = ['<%= config.bin %> plugins list', '<%= config.bin %> plugins list --json'];
  static override flags = {
    core: Flags.boolean({ description: 'Show the plugins skiff ships with too.' }),
    json: Flags.boolean({ description: 'Format output as JSON.' }),
  };

  async run(): Promise<void> {
    await this.parse(PluginsList);
    await this.config.runCommand('plugins', this.argv);
  }
}

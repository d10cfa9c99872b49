import { Plugin } from '@oclif/core';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../../../domain/shared/errors';

export interface WrittenManifest {
  readonly file: string;
  readonly commands: string[];
}

/**
 * Writes a plugin's oclif.manifest.json: its commands with their flags, arguments and
 * help, as oclif's own `oclif manifest` writes it. With it, skiff starts without loading
 * any of the plugin's code (each command file is required only when that command runs);
 * without it, oclif requires every command file of every plugin on every start. The
 * commands are loaded here, in this skiff, so `skiff-cli/plugin` resolves to it.
 */
export async function writePluginManifest(root: string): Promise<WrittenManifest> {
  const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true });
  await plugin.load();
  if (!plugin.valid) {
    throw new UsageError(
      `${root} is not a skiff plugin: its package.json has no "oclif" section`,
      'PLUGINS.NOT_A_PLUGIN',
    );
  }
  const file = join(plugin.root, 'oclif.manifest.json');
  writeFileSync(file, `${JSON.stringify(plugin.manifest, null, 2)}\n`);
  return { file, commands: Object.keys(plugin.manifest.commands).sort() };
}

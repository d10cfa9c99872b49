import { Plugin } from '@oclif/core';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError, UsageError } from '../../../../domain/shared/errors';
import { describeFsError, writeFileAtomic } from '../../helpers/atomic-file';

export interface WrittenManifest {
  readonly file: string;
  readonly commands: string[];
}

/** Refuses, in one line, a directory that is not a plugin's before anything is done with it. */
export function checkPluginDir(root: string): void {
  if (!existsSync(join(root, 'package.json'))) {
    throw new UsageError(
      `${root} has no package.json: give the plugin's directory (where its package.json is)`,
      'PLUGINS.NOT_A_PLUGIN',
    );
  }
}

/**
 * Writes a plugin's oclif.manifest.json: its commands with their flags, arguments and
 * help, as oclif's own `oclif manifest` writes it. With it, skiff starts without loading
 * any of the plugin's code (each command file is required only when that command runs);
 * without it, oclif requires every command file of every plugin on every start. The
 * commands are loaded here, in this skiff, so `skiff-cli/plugin` resolves to it. The
 * file is replaced atomically, never written through a link.
 */
export async function writePluginManifest(root: string): Promise<WrittenManifest> {
  checkPluginDir(root);
  const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true });
  await plugin.load();
  if (!plugin.valid) {
    throw new UsageError(
      `${root} is not a skiff plugin: its package.json has no "oclif" section`,
      'PLUGINS.NOT_A_PLUGIN',
    );
  }
  const file = join(plugin.root, 'oclif.manifest.json');
  try {
    writeFileAtomic(file, `${JSON.stringify(plugin.manifest, null, 2)}\n`, 0o644);
  } catch (err) {
    throw new ConfigurationError(`${file} cannot be written: ${describeFsError(err)}`, 'PLUGINS.MANIFEST_UNWRITTEN');
  }
  return { file, commands: Object.keys(plugin.manifest.commands).sort() };
}

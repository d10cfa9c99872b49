import { execFileSync } from 'node:child_process';
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { skiffPackageName, skiffVersion } from '../../../shared/helpers/package-info';
import { nativeAddon } from '../../os/native-addon';
import { nativePartsDir } from '../../os/native-parts';

const SHIM = 'containerd-shim-skiff-v2';

/**
 * `skiff --version`: oclif's line (the npm package's name and version, as the root help's
 * VERSION shows them), then the version of the native parts this skiff loads and
 * of the containerd-shim-skiff-v2 the PATH leads to, so that two installs mixed (an old shim
 * before a new skiff on the PATH, a source build over a prebuilt one) show.
 */
export function versionReport(env: NodeJS.ProcessEnv = process.env): string {
  const version = skiffVersion();
  const lines = [`${skiffPackageName()}/${version} ${process.platform}-${process.arch} node-${process.version}`];
  lines.push(nativeLine(version));
  lines.push(shimLine(version, env));
  return `${lines.join('\n')}\n`;
}

function mismatch(found: string, version: string): string {
  return found === version ? '' : ` (not skiff's ${version}: two installs are mixed, reinstall skiff)`;
}

function nativeLine(version: string): string {
  try {
    const found = nativeAddon().version;
    return `native parts ${found} in ${nativePartsDir()}${mismatch(found, version)}`;
  } catch (err) {
    return `native parts: ${(err as Error).message}`;
  }
}

function shimLine(version: string, env: NodeJS.ProcessEnv): string {
  const shim = onPath(SHIM, env.PATH ?? '');
  if (shim === undefined) return `${SHIM}: not on PATH (containerd looks for it on its own PATH)`;
  let found: string;
  try {
    found = /(\d+\.\d+\.\d+\S*)/.exec(execFileSync(shim, ['-v'], { encoding: 'utf8', timeout: 5000 }))?.[1] ?? '?';
  } catch {
    return `${SHIM} at ${shim}: does not answer -v: an older skiff's, or not skiff's`;
  }
  return `${SHIM} ${found} at ${shim} -> ${realpathSync(shim)}${mismatch(found, version)}`;
}

function onPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

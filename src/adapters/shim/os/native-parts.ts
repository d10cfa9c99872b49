import { dirname } from 'node:path';
import { packageRoot } from '../../shared/helpers/package-info';

// node-gyp-build ships no type declarations: the resolver is all skiff uses of it.
const nodeGypBuild = require('node-gyp-build') as { path(dir: string): string };

let addon: string | undefined;

/**
 * The addon skiff_native.node, chosen as node-gyp-build chooses: a source build
 * (build/Release) when there is one, else the package's prebuilt one for this platform
 * (prebuilds/<platform>-<arch>/, Node-API, so any Node the package supports).
 */
export function addonPath(): string {
  if (addon !== undefined) return addon;
  const root = packageRoot();
  try {
    addon = nodeGypBuild.path(root);
  } catch {
    throw new Error(
      `skiff has no native parts for ${process.platform}-${process.arch} (the package carries linux-x64 and linux-arm64 with glibc): ` +
        `build them from source with \`cd ${root} && npx node-gyp rebuild\` (needs a C compiler, make and Python)`,
    );
  }
  return addon;
}

/** Where the executables of the same build are (skiff-gate, containerd-shim-skiff-v2): beside the addon, so one set is used. */
export function nativePartsDir(): string {
  return dirname(addonPath());
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../infrastructure/package-info';

/** The functions of native/skiff_native.c (built by `npm install`). */
export interface NativeAddon {
  /** Bytes waiting unread in the pipe or FIFO behind `fd`. */
  fionread(fd: number): number;
  mkfifo(path: string, mode: number): void;
}

let loaded: NativeAddon | undefined;

export function nativeAddon(): NativeAddon {
  if (loaded === undefined) {
    const path = join(packageRoot(), 'build', 'Release', 'skiff_native.node');
    if (!existsSync(path)) {
      throw new Error(`skiff's native addon ${path} is missing: run \`npm install\` (it builds it with the C compiler)`);
    }
    loaded = require(path) as NativeAddon;
  }
  return loaded;
}

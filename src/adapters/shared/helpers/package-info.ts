import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The directory holding skiff's package.json, found from wherever the code runs (dist/ or a bundle). */
export function packageRoot(start: string = __dirname): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'binding.gyp'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

let version: string | undefined;

/** skiff's version, from package.json. */
export function skiffVersion(): string {
  version ??= (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}

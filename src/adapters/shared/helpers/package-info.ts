import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The directory holding skiff's package.json, found from wherever the code runs (dist/ or a bundle). */
export function packageRoot(start: string = __dirname): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'binding.gyp'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

let manifest: { name: string; version: string } | undefined;

function packageJson(): { name: string; version: string } {
  manifest ??= JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  return manifest;
}

/** skiff's version, from package.json. */
export function skiffVersion(): string {
  return packageJson().version;
}

/** The name of skiff's npm package (`skiff-cli`: the command is `skiff`), from package.json. */
export function skiffPackageName(): string {
  return packageJson().name;
}

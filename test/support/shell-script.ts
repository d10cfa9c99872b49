import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `dir/name`, an executable `#!/bin/sh` script running `body`, and returns its path. */
export function shellScript(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError } from '../../../../domain/shared/errors';
import { ProcessOverrides, withOverrides } from '../../../../domain/shim/process-overrides';
import { BundleWriter } from '../../../../application/shim/ports/bundle-writer.port';
import { RUN_FILES } from '../../os/run-layout';
import { checkBundle } from '../process-runtime/bundle';

/** Writes `<dir>/bundle/config.json`: the source bundle's, with the overrides (0600 in a 0700 directory). */
export class FsBundleWriter implements BundleWriter {
  async check(source: string): Promise<void> {
    checkBundle(source);
  }

  async derive(source: string, dir: string, overrides: ProcessOverrides): Promise<string> {
    const file = join(source, 'config.json');
    let config: unknown;
    try {
      config = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      const why = err instanceof SyntaxError ? 'is not JSON' : 'cannot be read';
      throw new InvalidArgumentError(`bundle ${source}: ${file} ${why}`, 'RUN.BUNDLE');
    }
    const bundle = join(dir, RUN_FILES.bundle);
    mkdirSync(bundle, { mode: 0o700 });
    const derived = withOverrides(config, overrides, source, file);
    writeFileSync(join(bundle, 'config.json'), `${JSON.stringify(derived, null, 2)}\n`, { mode: 0o600 });
    return bundle;
  }
}

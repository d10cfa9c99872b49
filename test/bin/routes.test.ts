import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

interface Route {
  readonly auth?: boolean;
  readonly readPath?: string;
  readonly readsStdin?: boolean;
  readonly serve?: boolean;
}

const { ROUTES } = require(join(ROOT, 'bin/run.js')) as { ROUTES: Record<string, Route> };
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, unknown>;
};

/**
 * bin/run.js's routing table sends a few commands past oclif: each is a command oclif has
 * (the manifest `npm run build` writes), so what a fast path does not understand still finds
 * the full command, and a command renamed or removed fails here instead of in a user's shell.
 */
describe("bin/run.js's routing table", () => {
  it.each(Object.keys(ROUTES))('`skiff %s` is a command of oclif.manifest.json', (words) => {
    expect(Object.keys(manifest.commands)).toContain(words.split(' ').join(':'));
  });

  it('routes each command one way, to a bundle scripts/bundle.js builds', () => {
    const bundles = readFileSync(join(ROOT, 'scripts/bundle.js'), 'utf8');
    for (const [words, route] of Object.entries(ROUTES)) {
      expect([words, Number(route.auth === true) + Number(route.serve === true)]).toEqual([words, 1]);
      if (route.readPath !== undefined) expect(bundles).toContain(`'${route.readPath}': {`);
    }
  });
});

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareVersions, StandInRegistry } from './stand-in-registry';

/** The stand-in registry of the package suite, on a lock file of its own (no npm, no pack). */
const dir = mkdtempSync(join(tmpdir(), 'skiff-registry-'));
let registry: StandInRegistry;
const tgz = join(dir, 'tiny-1.0.0.tgz');

beforeAll(async () => {
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({
      lockfileVersion: 3,
      packages: {
        '': { name: 'root', dependencies: { a: '^1.0.0' } },
        'node_modules/a': {
          version: '1.2.0',
          integrity: 'sha512-A',
          dependencies: { b: '^1.0.0' },
          bin: { a: 'a.js' },
        },
        'node_modules/b': { version: '1.0.0', integrity: 'sha512-B1', dev: true },
        'node_modules/c/node_modules/b': { version: '1.10.0', integrity: 'sha512-B2', license: 'MIT' },
        'node_modules/old-b': { name: 'b', version: '0.9.0', integrity: 'sha512-B0' },
        'node_modules/@s/d': { version: '2.0.0-rc.1', integrity: 'sha512-D', bundleDependencies: ['e'] },
        'node_modules/@s/d/node_modules/e': { version: '1.0.0', inBundle: true },
      },
    }),
  );
  mkdirSync(join(dir, 'package'));
  writeFileSync(join(dir, 'package/package.json'), JSON.stringify({ name: 'tiny', version: '1.0.0', bin: 't.js' }));
  execFileSync('tar', ['czf', tgz, '-C', dir, 'package']);
  registry = await StandInRegistry.start(join(dir, 'package-lock.json'), [tgz]);
});

afterAll(async () => {
  await registry.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = async (path: string) => {
  const reply = await fetch(`${registry.url}${path}`);
  return {
    status: reply.status,
    cache: reply.headers.get('cache-control'),
    body: Buffer.from(await reply.arrayBuffer()),
  };
};

it("offers each name in exactly the versions the lock holds, with the lock's integrity and a tarball here, cacheable by nobody", async () => {
  const reply = await get('b');
  expect(reply.status).toBe(200);
  expect(reply.cache).toBe('no-store');
  const packument = JSON.parse(reply.body.toString());
  expect(packument['dist-tags']).toEqual({ latest: '1.10.0' });
  expect(Object.keys(packument.versions).sort()).toEqual(['0.9.0', '1.0.0', '1.10.0']);
  expect(packument.versions['1.10.0']).toEqual({
    name: 'b',
    version: '1.10.0',
    license: 'MIT',
    dist: { tarball: `${registry.url}b/-/b-1.10.0.tgz`, integrity: 'sha512-B2' },
  });
  const a = JSON.parse((await get('a')).body.toString()).versions['1.2.0'];
  expect(a).toMatchObject({ dependencies: { b: '^1.0.0' }, bin: { a: 'a.js' } });
});

it('a scoped name (npm asks for @scope%2fname) with its bundled dependencies, which are not offered on their own', async () => {
  const d = JSON.parse((await get('@s%2fd')).body.toString());
  expect(d.versions['2.0.0-rc.1']).toMatchObject({
    bundleDependencies: ['e'],
    dist: { tarball: `${registry.url}@s/d/-/d-2.0.0-rc.1.tgz` },
  });
  expect((await get('e')).status).toBe(404);
});

it('serves a packed tarball under its own name, with its integrity', async () => {
  const data = readFileSync(tgz);
  const tiny = JSON.parse((await get('tiny')).body.toString());
  expect(tiny['dist-tags']).toEqual({ latest: '1.0.0' });
  expect(tiny.versions['1.0.0']).toMatchObject({
    name: 'tiny',
    bin: 't.js',
    dist: {
      tarball: `${registry.url}tiny/-/tiny-1.0.0.tgz`,
      integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
    },
  });
  const reply = await get('tiny/-/tiny-1.0.0.tgz');
  expect(reply.status).toBe(200);
  expect(reply.body.equals(data)).toBe(true);
});

it("names what npm asked for and did not get: a name the lock lacks, a lock package's tarball (not in npm's cache)", async () => {
  expect((await get('nowhere')).status).toBe(404);
  expect((await get('@s/d/-/d-2.0.0-rc.1.tgz')).status).toBe(404);
  expect(registry.misses()).toBe(
    "not in skiff's package-lock.json: e, nowhere; not in npm's cache (npm ci in skiff's checkout fills it): @s/d@2.0.0-rc.1",
  );
});

it('orders versions as semver does', () => {
  const sorted = ['1.10.0', '1.2.0', '1.2.0-rc.1', '0.9.9', '1.2.0-beta', '10.0.0'].sort(compareVersions);
  expect(sorted).toEqual(['0.9.9', '1.2.0-beta', '1.2.0-rc.1', '1.2.0', '1.10.0', '10.0.0']);
});

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * An npm registry on 127.0.0.1 standing in for registry.npmjs.org, so that a project outside
 * the repository can `npm install` skiff-cli as a plugin author will once it is published,
 * without the internet: skiff-cli is a tarball `npm pack` made, and every other package is
 * offered in exactly the versions skiff's package-lock.json holds, with the lock's integrity.
 * npm then takes those tarballs from its cache by that integrity (filled by `npm ci` of the
 * checkout); a tarball it asks this registry for is one its cache lacks, and a name the lock
 * lacks is unknown here: both answer 404 and are recorded, for the test to name them.
 * Nothing is cacheable (`no-store`), so npm's cache keeps nothing of this registry between runs.
 */
export class StandInRegistry {
  /** Names asked for that neither the lock nor a served tarball has. */
  readonly unknown: string[] = [];
  /** `name@version` of lock packages whose tarball npm asked for: missing from npm's cache. */
  readonly uncached: string[] = [];
  /** Every request, `METHOD /path`. */
  readonly requests: string[] = [];

  private readonly packuments = new Map<string, Packument>();
  private readonly tarballs = new Map<string, Buffer>();
  private server!: Server;

  private constructor(private readonly lock: LockPackage[]) {}

  /** Serves the packages of the lock file at `lockFile` and the `npm pack` tarballs `packed` (their own name and version). */
  static async start(lockFile: string, packed: readonly string[]): Promise<StandInRegistry> {
    const registry = new StandInRegistry(lockPackages(lockFile));
    registry.server = createServer((req, res) => registry.handle(req, res));
    await new Promise<void>((resolve) => registry.server.listen(0, '127.0.0.1', resolve));
    for (const lock of registry.lock) {
      const dist = { tarball: registry.tarballUrl(lock.name, lock.version), integrity: lock.integrity };
      registry.offer(lock.name, { ...lock.manifest, name: lock.name, version: lock.version, dist });
    }
    for (const file of packed) {
      const data = readFileSync(file);
      const manifest = JSON.parse(execFileSync('tar', ['xzOf', file, 'package/package.json'], { encoding: 'utf8' }));
      const dist = {
        tarball: registry.tarballUrl(manifest.name, manifest.version),
        integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
        shasum: createHash('sha1').update(data).digest('hex'),
      };
      registry.offer(manifest.name, { ...manifest, dist });
      registry.tarballs.set(new URL(dist.tarball).pathname, data);
    }
    return registry;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  /**
   * What npm asked for and did not get, in one line ('' when nothing): names the lock lacks
   * (npm asks after optional peer dependencies too, and does without them) and tarballs
   * missing from npm's cache.
   */
  misses(): string {
    const unknown = [...new Set(this.unknown)];
    return [
      unknown.length > 0 ? `not in skiff's package-lock.json: ${unknown.join(', ')}` : '',
      this.uncached.length > 0
        ? `not in npm's cache (npm ci in skiff's checkout fills it): ${this.uncached.join(', ')}`
        : '',
    ]
      .filter((part) => part !== '')
      .join('; ');
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private offer(name: string, version: Manifest & { version: string }): void {
    const packument = this.packuments.get(name) ?? { name, 'dist-tags': {}, versions: {} };
    packument.versions[version.version] = version;
    const latest = packument['dist-tags'].latest;
    if (latest === undefined || compareVersions(version.version, latest) > 0)
      packument['dist-tags'].latest = version.version;
    this.packuments.set(name, packument);
  }

  /** Where npm's own registry keeps a tarball: `/<name>/-/<name without scope>-<version>.tgz`. */
  private tarballUrl(name: string, version: string): string {
    return `${this.url}${name}/-/${name.replace(/^@[^/]+\//, '')}-${version}.tgz`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', this.url).pathname;
    this.requests.push(`${req.method} ${path}`);
    const reply = (status: number, body: unknown, type = 'application/json') =>
      res
        .writeHead(status, { 'content-type': type, 'cache-control': 'no-store' })
        .end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
    const tarball = /^\/(.+)\/-\/[^/]+-(\d[^/]*)\.tgz$/.exec(decodeURIComponent(path));
    if (tarball !== null) {
      const data = this.tarballs.get(path);
      if (data !== undefined) return void reply(200, data, 'application/octet-stream');
      this.uncached.push(`${tarball[1]}@${tarball[2]}`);
      return void reply(404, {
        error: `${tarball[1]}@${tarball[2]} is not in npm's cache: npm ci in skiff's checkout`,
      });
    }
    const name = decodeURIComponent(path.slice(1));
    const packument = this.packuments.get(name);
    if (packument !== undefined) return void reply(200, packument);
    this.unknown.push(name);
    reply(404, { error: `${name} is not in skiff's package-lock.json` });
  }
}

/** One version of a package as a registry describes it (the part npm installs from). */
type Manifest = Record<string, unknown>;

interface Packument {
  name: string;
  'dist-tags': Record<string, string>;
  versions: Record<string, Manifest>;
}

interface LockPackage {
  readonly name: string;
  readonly version: string;
  readonly integrity: string;
  readonly manifest: Manifest;
}

/** What npm needs of a version to resolve and install it, as the lock file records it. */
const MANIFEST_FIELDS = [
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bundleDependencies',
  'bin',
  'engines',
  'os',
  'cpu',
  'libc',
  'hasInstallScript',
  'deprecated',
  'license',
] as const;

/**
 * The registry packages of a lock file (lockfileVersion 2 or 3), one entry per name and
 * version; bundled ones are left out (they come in their bundler's tarball).
 */
function lockPackages(file: string): LockPackage[] {
  const lock = JSON.parse(readFileSync(file, 'utf8')) as { packages: Record<string, Record<string, unknown>> };
  const seen = new Map<string, LockPackage>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.inBundle === true || entry.link === true) continue;
    const name = typeof entry.name === 'string' ? entry.name : path.slice(path.lastIndexOf('node_modules/') + 13);
    const { version, integrity } = entry;
    if (typeof version !== 'string' || typeof integrity !== 'string')
      throw new Error(`${file}: ${path} has no version or integrity`);
    const manifest = Object.fromEntries(MANIFEST_FIELDS.filter((f) => f in entry).map((f) => [f, entry[f]]));
    seen.set(`${name}@${version}`, { name, version, integrity, manifest });
  }
  return [...seen.values()];
}

/** Orders `major.minor.patch[-pre]` versions as semver does, a prerelease before its release (prereleases compared as text). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core, pre] = v.split(/-(.*)/s);
    return { core: core.split('.').map(Number), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i] - y.core[i];
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { BUSYBOX_IMAGE, containerdTestsEnabled, uniqueNamespace } from '../../support/containerd';
import { CliHome } from '../support/skiff-home';
import { OidcServer } from '../support/oidc';
import { signInWithSso, useProvider } from '../support/sign-in';
import { waitFor } from '../../support/wait-for';
import { groupServersUnder } from '../containerd/skiff-support';
import { readCriLog, startCriEnv, waitForState } from '../cri/support';
import { documentedFiles, writeFiles } from '../../support/documented-files';
import { unjudgedCode } from '../../native/support/package-code';
import { BUILD_TOOLS, failure, npm, packageTestsRunHere, PREBUILT, Ran, ROOT, tarball, toolDir } from './support';
import { StandInRegistry } from './stand-in-registry';

/**
 * The npm package as a node gets it (docs/install.md): packed, installed globally on a
 * machine whose PATH has no C compiler, make or Python, run by a private containerd through
 * the section `skiff containerd config` printed, and built against by plugin projects
 * outside the repository: the example with the tarball as a file, and the minimal plugin of
 * docs/plugins.md with skiff-cli from a registry (a stand-in on 127.0.0.1, no internet). One
 * tarball and one install for the whole file.
 */
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  license: string;
  devDependencies: Record<string, string>;
};
const work = mkdtempSync(join(tmpdir(), 'skiff-pkg-'));
/** A copy of the checkout, packed as a release is: its `npm run build` cannot disturb the suites beside this one. */
const checkout = join(work, 'checkout');
const prefix = join(work, 'prefix');
const installed = join(prefix, 'lib/node_modules', pkg.name);
/** The PATH of a machine with Node.js, a shell and coreutils, and nothing to build with. */
let bare: string;
let tgz: string;
/** Whether this machine can make the arm64 parts (SKIFF_PACKAGE_TESTS as packageTestsRunHere says). */
const RUN = packageTestsRunHere();

const ms = (ran: Ran) => `${(ran.ms / 1000).toFixed(1)} s`;
const note = (line: string) => process.stderr.write(`${line}\n`);

if (RUN)
  beforeAll(async () => {
    bare = toolDir(join(work, 'bare'), ['node', 'sh', 'readlink', 'uname', 'cat', 'rm', 'mkdir']);
    copyCheckout(checkout);
    const packed = await npm(['pack', '--pack-destination', work], checkout, {});
    if (packed.code !== 0) throw new Error(failure('npm pack', packed));
    tgz = join(work, packed.stdout.trim().split('\n').pop() as string);
    note(`npm pack (build, prebuilds, pack): ${ms(packed)}; ${tgz} is ${(statSync(tgz).size / 1024).toFixed(0)} KiB`);
  }, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the repository's license and changelog, which the package carries", () => {
  it('has the Apache-2.0 license in full, and this version in its CHANGELOG', () => {
    expect(pkg.license).toBe('Apache-2.0');
    const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    expect(license).toContain('END OF TERMS AND CONDITIONS');
    expect(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')).toContain(`## ${pkg.version}`);
  });
});

if (RUN)
  describe('the npm package', () => {
    it('holds what runs and nothing else: the built code, both platforms prebuilt, the sources for a build of its own', () => {
      const files = tarball(tgz).map((f) => f.replace(/^package\//, ''));
      for (const part of PREBUILT) expect(files).toContain(part);
      // The shim judges every file of it a root process could run or load (test/native/package-code.test.ts).
      expect(unjudgedCode(files.filter((f) => !f.endsWith('/')))).toEqual([]);
      for (const file of ['bin/run.js', 'dist/shim.bundle.js', 'binding.gyp', 'LICENSE', 'CHANGELOG.md', 'README.md'])
        expect(files).toContain(file);
      expect(files).toContain('dist/adapters/shim/wire/proto/generated/task/v2/shim.js');
      const strays = files.filter((f) =>
        /^(src|test|bench|scripts|examples|docs|proto|build|\.ci)\/|\.map$|^dist\/node-path$|\.test\.|tsconfig/.test(f),
      );
      expect(strays).toEqual([]);
    });

    it('the arm64 executables are arm64 programs that run (under qemu-aarch64-static)', () => {
      const dir = join(checkout, 'prebuilds/linux-arm64');
      const machine = (file: string) => readFileSync(join(dir, file)).readUInt16LE(18);
      for (const part of ['skiff.glibc.node', 'skiff-gate', 'containerd-shim-skiff-v2'])
        expect(machine(part)).toBe(183); // EM_AARCH64
      const qemu = 'qemu-aarch64-static';
      const shim = spawnSync(qemu, ['-L', '/usr/aarch64-linux-gnu', join(dir, 'containerd-shim-skiff-v2'), '-v'], {
        encoding: 'utf8',
      });
      expect(shim).toMatchObject({ status: 0, stdout: `containerd-shim-skiff-v2 ${pkg.version}\n` });
      const usage = spawnSync(qemu, ['-L', '/usr/aarch64-linux-gnu', join(dir, 'containerd-shim-skiff-v2')], {
        encoding: 'utf8',
      });
      expect(usage.status).toBe(2);
      const gate = spawnSync(qemu, [join(dir, 'skiff-gate'), '--', '/nonexistent/program', 'x'], { encoding: 'utf8' });
      expect(gate).toMatchObject({
        status: 127,
        stderr: 'skiff-gate: exec /nonexistent/program: No such file or directory\n',
      });
      expect(spawnSync(qemu, [join(dir, 'skiff-gate'), '--', '/bin/true', 'true']).status).toBe(0);
    });

    it('`npm publish --dry-run` passes against a registry where the name is free', async () => {
      const asked: string[] = [];
      const registry: Server = createServer((req, res) => {
        asked.push(`${req.method} ${req.url}`);
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      });
      await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
        const dry = await npm(['publish', '--dry-run', '--ignore-scripts', '--registry', url], checkout, {});
        expect(dry.stderr).not.toMatch(/npm error/);
        expect(dry.code).toBe(0);
        expect(dry.stdout).toContain(`+ ${pkg.name}@${pkg.version}`);
      } finally {
        registry.close();
      }
    });
  });

if (RUN)
  describe('npm install -g of the tarball on a machine without a C compiler, make or Python', () => {
    let install: Ran;
    const env = () => ({ PATH: `${join(prefix, 'bin')}:${bare}`, HOME: process.env.HOME });

    beforeAll(async () => {
      install = await npm(['install', '-g', '--prefix', prefix, '--prefer-offline', tgz], work, { PATH: bare });
      note(`npm install -g of the tarball: ${ms(install)}`);
    }, 240_000);

    it('finds none of them on its PATH', () => {
      const found = spawnSync('/bin/sh', ['-c', BUILD_TOOLS.map((t) => `command -v ${t}`).join('; ')], {
        env: { PATH: bare },
        encoding: 'utf8',
      });
      expect(found.stdout).toBe('');
    });

    it('installs, running no script of skiff, and puts skiff and containerd-shim-skiff-v2 on the PATH', () => {
      expect(install.code === 0 ? '' : failure('npm install -g', install)).toBe('');
      // npm lists the scripts an install would run that no allowScripts entry covers: none of skiff's.
      expect(install.stderr).not.toMatch(new RegExp(`^npm warn install-scripts +${pkg.name}@`, 'm'));
      const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
        gypfile: boolean;
      };
      for (const event of ['preinstall', 'install', 'postinstall', 'prepare'])
        expect(manifest.scripts[event]).toBeUndefined();
      expect(manifest.gypfile).toBe(false);
      expect(existsSync(join(installed, 'build'))).toBe(false);
      const which = spawnSync('/bin/sh', ['-c', 'command -v skiff; command -v containerd-shim-skiff-v2'], {
        env: env(),
        encoding: 'utf8',
      });
      expect(which.stdout).toBe(`${join(prefix, 'bin/skiff')}\n${join(prefix, 'bin/containerd-shim-skiff-v2')}\n`);
    });

    it('`skiff --version` names the prebuilt native parts it loads and the shim on the PATH, all of its version', () => {
      const result = spawnSync(join(prefix, 'bin/skiff'), ['--version'], { env: env(), encoding: 'utf8' });
      expect(result.status).toBe(0);
      const arch = process.arch;
      expect(result.stdout.split('\n')).toEqual([
        `${pkg.name}/${pkg.version} linux-${arch} node-${process.version}`,
        `native parts ${pkg.version} in ${join(installed, `prebuilds/linux-${arch}`)}`,
        `containerd-shim-skiff-v2 ${pkg.version} at ${join(prefix, 'bin/containerd-shim-skiff-v2')} -> ${join(installed, 'bin/containerd-shim-skiff-v2')}`,
        '',
      ]);
    });

    it('`skiff --version` shows a shim of another version first on the PATH (two installs mixed)', () => {
      const other = toolDir(join(work, 'other-shim'), []);
      writeFileSync(join(other, 'containerd-shim-skiff-v2'), '#!/bin/sh\necho containerd-shim-skiff-v2 0.0.9\n', {
        mode: 0o755,
      });
      const result = spawnSync(join(prefix, 'bin/skiff'), ['--version'], {
        env: { ...env(), PATH: `${other}:${env().PATH}` },
        encoding: 'utf8',
      });
      expect(result.stdout).toMatch(
        /^containerd-shim-skiff-v2 0\.0\.9 at .* \(not skiff's 0\.1\.0: two installs are mixed, reinstall skiff\)$/m,
      );
    });

    it('`skiff run` of a bundle runs through the prebuilt addon and start gate', () => {
      const result = spawnSync(join(prefix, 'bin/skiff'), ['run', '--bundle', join(ROOT, 'examples/hello')], {
        env: env(),
        encoding: 'utf8',
      });
      expect(result).toMatchObject({ status: 0, stderr: 'this line goes to stderr\n' });
      expect(result.stdout).toMatch(/^hello from skiff: pid \d+, Linux /);
    });

    describe("containerd-shim-skiff-v2 start under containerd's environment (a PATH without node)", () => {
      const shimPath = () => toolDir(join(work, 'containerd-path'), ['runc', 'readlink', 'uname']);

      /** Runs the installed shim's `start` in a bundle laid out as containerd's; resolves its result and what reached the bundle's log. */
      async function start(
        extraEnv: NodeJS.ProcessEnv,
      ): Promise<{ status: number | null; stderr: string; log: string }> {
        const root = mkdtempSync(join(work, 'ctrd-'));
        const bundle = join(root, 'state/io.containerd.runtime.v2.task/ns1/c1');
        mkdirSync(bundle, { recursive: true });
        writeFileSync(join(bundle, 'config.json'), '{}');
        execFileSync('mkfifo', [join(bundle, 'log')]);
        // containerd holds the log FIFO open for reading, as here, and copies it to its own log.
        const log = openSync(join(bundle, 'log'), constants.O_RDONLY | constants.O_NONBLOCK);
        try {
          const args = ['-namespace', 'ns1', '-address', join(root, 'c.sock'), '-id', 'c1', 'start'];
          const result = spawnSync(join(prefix, 'bin/containerd-shim-skiff-v2'), args, {
            cwd: bundle,
            env: { PATH: shimPath(), ...extraEnv },
            encoding: 'utf8',
            timeout: 10_000,
          });
          let text = '';
          await waitFor('a line in the log', () => {
            const buf = Buffer.alloc(4096);
            try {
              text += buf.subarray(0, readSync(log, buf)).toString();
            } catch {
              // EAGAIN: nothing yet
            }
            // The keeper's own line (a serving process started: docs/node-daemon.md) may come first.
            return text.endsWith('\n') && text.split('\n').some((l) => !/^skiff-keeper\[\d+\]: /.test(l) && l !== '');
          });
          const lines = text
            .split('\n')
            .filter((l) => !/^skiff-keeper\[\d+\]: no serving process answered on /.test(l));
          return { status: result.status, stderr: result.stderr, log: lines.join('\n') };
        } finally {
          closeSync(log);
        }
      }

      afterEach(() => rmSync(join(work, 'containerd-path'), { recursive: true, force: true }));

      it("with no Node.js to be found: one line, in containerd's log and in the error, saying what to set", async () => {
        const result = await start({});
        expect(result.status).toBe(1);
        const line = `containerd-shim-skiff-v2: no Node.js to run skiff's serving process: SKIFF_NODE is unset, ${prefix}/bin/node (skiff's npm prefix) does not exist, and containerd's PATH (${join(work, 'containerd-path')}) has no node; set SKIFF_NODE=/path/to/node (Node.js 20 or newer) in containerd's environment (systemctl edit containerd: Environment=SKIFF_NODE=...)\n`;
        expect(result.stderr).toBe(line);
        expect(result.log).toBe(line);
      });

      it("with a Node.js older than skiff needs: one line in containerd's log", async () => {
        const old = join(work, 'old-node');
        writeFileSync(`${old}.js`, "Object.defineProperty(process.versions, 'node', { value: '18.19.0' });\n");
        writeFileSync(old, `#!/bin/sh\nexec ${process.execPath} -r ${old}.js "$@"\n`, { mode: 0o755 });
        const result = await start({ SKIFF_NODE: old });
        expect(result.status).toBe(0);
        expect(result.log).toBe(
          `skiff: ${process.execPath} is Node.js 18.19.0 and skiff needs >=20: set SKIFF_NODE=/path/to/node (Node.js 20 or newer) in containerd's environment (docs/install.md)\n`,
        );
      });
    });

    if (containerdTestsEnabled())
      it('a private containerd configured with the printed section runs `ctr run --rm` and a CRI pod through the installed shim, with the node of its prefix', async () => {
        // A Node.js installed in the prefix, as the official builds and nvm lay it out; containerd's PATH has none.
        symlinkSync(process.execPath, join(prefix, 'bin/node'));
        const skiff = (args: string[]) =>
          execFileSync(join(prefix, 'bin/skiff'), args, {
            env: { PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, HOME: process.env.HOME },
            encoding: 'utf8',
          });
        const section = (configFile: string) => skiff(['containerd', 'config', '--config-file', configFile]);
        expect(skiff(['containerd', 'config', '--config-file', '/nonexistent'])).toContain(
          '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.skiff]',
        );
        const runtimeClass = parse(skiff(['containerd', 'runtimeclass'])) as { kind: string; handler: string };
        expect(runtimeClass.kind).toBe('RuntimeClass');
        const started = Date.now();
        const ctx = await startCriEnv({
          shimDirs: [join(prefix, 'bin')],
          systemPath: toolDir(join(work, 'containerd-tools'), ['runc', 'readlink', 'uname']),
          skiffSection: section,
        });
        try {
          const ns = uniqueNamespace('pkg');
          await ctx.env.importImages(ns);
          const id = 'hello';
          const ran = await ctx.env.ctr(ns, [
            'run',
            '--rm',
            '--runtime',
            'io.containerd.skiff.v2',
            BUSYBOX_IMAGE,
            id,
            'echo',
            'hello from the package',
          ]);
          expect({ status: ran.status, stdout: ran.stdout, stderr: ran.stderr }).toEqual({
            status: 0,
            stdout: 'hello from the package\n',
            stderr: '',
          });
          const pod = await ctx.startPod(runtimeClass.handler, { name: 'pkg' }, [
            { name: 'c', command: ['sh', '-c', 'echo hello from a pod; exec sleep 1000'] },
          ]);
          await waitForState(ctx.cri, pod.containerIds[0], 'CONTAINER_RUNNING');
          await waitFor('the pod to log', () =>
            readCriLog(join(ctx.logDir, 'pkg', 'c_0.log')).some((l) => l.text === 'hello from a pod'),
          );
          const servers = groupServersUnder(ctx.env.paths.dir).map((s) => s.argv);
          expect(servers.length).toBeGreaterThan(0);
          for (const argv of servers) {
            // node [its options] <the installed skiff's daemon script> ...: the prefix's node as the
            // shim judged it, its link resolved, so that no link is read again (docs/install.md).
            expect(argv[0]).toBe(realpathSync(join(prefix, 'bin/node')));
            expect(argv.find((arg) => !arg.startsWith('-') && arg !== argv[0])).toBe(
              join(installed, 'bin/containerd-daemon.js'),
            );
          }
        } finally {
          await ctx.close();
        }
        note(
          `containerd with the installed skiff, a container and a pod: ${((Date.now() - started) / 1000).toFixed(1)} s`,
        );
      }, 90_000);
  });

/** The checkout's files (tracked, and new ones git does not ignore) as they are now, with its node_modules linked. */
function copyCheckout(dest: string): void {
  const list = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  for (const file of new Set(list.split('\0').filter((f) => f !== ''))) {
    if (!existsSync(join(ROOT, file))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dest, file), { verbatimSymlinks: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dest, 'node_modules'));
}

if (RUN)
  describe("a plugin author's project outside the repository, with the packed skiff as its dev dependency", () => {
    const project = join(work, 'plugin-hello');
    const env = () => ({ PATH: bare });
    let oidc: OidcServer | undefined;
    let home: CliHome | undefined;

    beforeAll(() => {
      for (const part of ['src', 'test', 'jest.config.js', 'README.md'])
        cpSync(join(ROOT, 'examples/plugin-hello', part), join(project, part), { recursive: true });
      const manifest = JSON.parse(readFileSync(join(ROOT, 'examples/plugin-hello/package.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      const dev = (name: string) => pkg.devDependencies[name];
      manifest.devDependencies = {
        [pkg.name]: `file:${tgz}`,
        typescript: dev('typescript'),
        jest: dev('jest'),
        'ts-jest': dev('ts-jest'),
        '@types/jest': dev('@types/jest'),
        '@types/node': dev('@types/node'),
      };
      writeFileSync(join(project, 'package.json'), JSON.stringify(manifest, null, 2));
      // Its tsconfig without the repository's path to skiff's own build: skiff comes from node_modules.
      const tsconfig = JSON.parse(
        readFileSync(join(ROOT, 'examples/plugin-hello/tsconfig.json'), 'utf8').replace(/^\s*\/\/.*$/gm, ''),
      ) as { compilerOptions: Record<string, unknown> };
      delete tsconfig.compilerOptions.paths;
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    });

    afterAll(async () => {
      await oidc?.stop();
      home?.remove();
    });

    it('installs, builds and passes its own test with skiff/testing', async () => {
      const installing = await npm(['install', '--prefer-offline'], project, env());
      expect(installing.code === 0 ? '' : failure('npm install', installing)).toBe('');
      note(`the plugin project's npm install: ${ms(installing)}`);
      const build = await npm(['run', 'build'], project, env());
      expect(build.code === 0 ? '' : failure('npm run build', build)).toBe('');
      expect(existsSync(join(project, 'dist/commands/hello.js'))).toBe(true);
      const test = await npm(['test'], project, env());
      expect(test.code === 0 ? '' : failure('npm test', test)).toBe('');
      expect(test.stderr).toMatch(/Tests: +\d+ passed, \d+ total/);
    }, 240_000);

    it('is linked into the globally installed skiff and run there, against the real OpenID provider', async () => {
      oidc = await OidcServer.start();
      home = new CliHome(join(installed, 'bin/run.js'));
      expect((await home.run(['plugins', 'link', project, '--no-install'])).code).toBe(0);
      expect((await home.run(['plugins', 'list'])).stdout).toBe(`skiff-plugin-hello 0.1.0 (link) ${project}\n`);
      await useProvider(home, oidc);
      expect((await signInWithSso(home)).code).toBe(0);
      const hello = await home.run(['hello']);
      expect(hello).toEqual({
        code: 0,
        stdout:
          'Hello alice@example.com, signed in on context e2e (e2e.test).\n' +
          `The platform at ${new URL(oidc.issuer).host} knows you as alice@example.com.\n`,
        stderr: '',
      });
    }, 60_000);
  });

if (RUN)
  describe('the minimal plugin of docs/plugins.md, with skiff-cli and its tools from a registry (a stand-in on 127.0.0.1)', () => {
    const project = join(work, 'plugin-minimal');
    const env = () => ({ PATH: bare });
    /**
     * npm against the stand-in, with no way to the internet: a proxy that refuses every
     * connection but those to 127.0.0.1, and no retries.
     */
    const offline = (registry: StandInRegistry) => [
      '--registry',
      registry.url,
      '--proxy',
      'http://127.0.0.1:9',
      '--https-proxy',
      'http://127.0.0.1:9',
      '--noproxy',
      '127.0.0.1',
      '--fetch-retries',
      '0',
    ];
    let registry: StandInRegistry | undefined;
    let oidc: OidcServer | undefined;
    let home: CliHome | undefined;

    beforeAll(async () => {
      registry = await StandInRegistry.start(join(ROOT, 'package-lock.json'), [tgz]);
      writeFiles(project, documentedFiles(readFileSync(join(ROOT, 'docs/plugins.md'), 'utf8')));
    });

    afterAll(async () => {
      await registry?.close();
      await oidc?.stop();
      home?.remove();
    });

    it("`npm install` gets the packed skiff-cli from the registry and its tools in the versions of skiff's lock, each tarball but skiff-cli's from npm's cache", async () => {
      const stand = registry as StandInRegistry;
      const installing = await npm(['install', ...offline(stand)], project, env());
      note(`the minimal plugin's npm install from the stand-in registry: ${ms(installing)}`);
      expect(installing.code === 0 ? '' : `${failure('npm install', installing)}\n${stand.misses()}`).toBe('');
      expect(stand.uncached).toEqual([]);
      const skiffLock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as LockFile;
      const pluginLock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as LockFile;
      // Asked of the registry, and the packed tarball (which npm may have in its cache already,
      // from the global install above; a lock keeps no `resolved` with omit-lockfile-registry-resolved).
      expect(stand.requests).toContain(`GET /${pkg.name}`);
      expect(pluginLock.packages[`node_modules/${pkg.name}`]).toMatchObject({
        version: pkg.version,
        integrity: `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`,
      });
      for (const tool of ['typescript', 'jest', 'ts-jest', '@types/jest', '@types/node'])
        expect([tool, pluginLock.packages[`node_modules/${tool}`]?.version]).toEqual([
          tool,
          skiffLock.packages[`node_modules/${tool}`].version,
        ]);
    }, 240_000);

    it('builds (dist/ and the manifest, by the skiff-cli it installed) and passes its test with skiff-cli/testing', async () => {
      const build = await npm(['run', 'build'], project, env());
      expect(build.code === 0 ? '' : failure('npm run build', build)).toBe('');
      expect(build.stdout).toContain('(1 command: hello)');
      expect(existsSync(join(project, 'dist/commands/hello.js'))).toBe(true);
      const test = await npm(['test'], project, env());
      expect(test.code === 0 ? '' : failure('npm test', test)).toBe('');
      expect(test.stderr).toMatch(/Tests: +2 passed, 2 total/);
    }, 120_000);

    it('`skiff plugins link` of the globally installed skiff adds it, and `skiff hello --shout` greets whoever signed in', async () => {
      oidc = await OidcServer.start();
      home = new CliHome(join(installed, 'bin/run.js'));
      expect((await home.run(['plugins', 'link', project, '--no-install'])).code).toBe(0);
      expect((await home.run(['plugins', 'list'])).stdout).toBe(`skiff-plugin-minimal 0.1.0 (link) ${project}\n`);
      expect((await home.run(['hello', '--help'])).stdout).toMatch(/-s, --shout +In capitals\./);
      await useProvider(home, oidc);
      expect((await signInWithSso(home)).code).toBe(0);
      expect(await home.run(['hello', '--shout'])).toEqual({
        code: 0,
        stdout: 'HELLO ALICE@EXAMPLE.COM ON E2E\n',
        stderr: '',
      });
    }, 60_000);
  });

/** The part of a package-lock.json read here. */
interface LockFile {
  packages: Record<string, { version: string; integrity?: string }>;
}

import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { task } from '../../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import { socketAccepts } from '../../../src/adapters/shim/os/socket-accepts';
import { groupServerPids } from './skiff-support';
import { waitFor } from '../../support/wait-for';

/**
 * containerd-shim-skiff-v2 on its own, run the way containerd runs it (cwd = the bundle
 * under <state>/io.containerd.runtime.v2.task/<ns>/<id>), without a containerd.
 */
const SHIM = resolve(__dirname, '../../../bin/containerd-shim-skiff-v2');

function layout(ns: string, id: string, config: object = {}) {
  const root = mkdtempSync(join(tmpdir(), 'skiff-bin-'));
  const bundle = join(root, 'state/io.containerd.runtime.v2.task', ns, id);
  mkdirSync(bundle, { recursive: true });
  writeFileSync(join(bundle, 'config.json'), JSON.stringify(config));
  return { root, bundle, state: join(root, 'state'), address: join(root, 'c.sock') };
}

function shim(bundle: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(SHIM, args, { cwd: bundle, encoding: 'buffer', timeout: 10_000, env: { ...process.env, ...env } });
}

/** The sockets in a directory; none when it was never made. */
function socketsIn(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.sock')) : [];
}

/** `start` without pod keepers dials (and starts) the group's serving process itself. */
const NO_KEEPER = { SKIFF_KEEPER: '0' };

const BUILT = resolve(__dirname, '../../../build/Release/containerd-shim-skiff-v2');
const LINUX = process.platform === 'linux';

describe('where containerd-shim-skiff-v2 is built', () => {
  it('is built by npm install on Linux only, where containerd runs it', () => {
    expect(existsSync(BUILT)).toBe(LINUX);
  });
});

if (!LINUX) process.stderr.write('containerd-shim-skiff-v2 suite not run: the binary is Linux-only\n');

if (LINUX)
  describe('containerd-shim-skiff-v2 without containerd', () => {
    const made: string[] = [];
    afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

    it('prints one usage line and exits 2 without an action', () => {
      const result = shim(tmpdir(), ['-namespace', 'n']);
      expect(result.status).toBe(2);
      expect(result.stderr.toString()).toMatch(/^usage: containerd-shim-skiff-v2 .* start\|delete\n/);
    });

    it('delete of a task its serving process already deleted prints an empty DeleteResponse and exits 0', () => {
      const l = layout('n1', 'gone');
      made.push(l.root);
      const result = shim(l.bundle, [
        '-namespace',
        'n1',
        '-address',
        l.address,
        '-id',
        'gone',
        '-bundle',
        l.bundle,
        'delete',
      ]);
      expect({ status: result.status, stdout: result.stdout.length, stderr: result.stderr.toString() }).toEqual({
        status: 0,
        stdout: 0,
        stderr: '',
      });
    });

    it('delete after its serving process died removes what is left and reports 137 with the init pid', () => {
      const l = layout('n1', 'orphan');
      made.push(l.root);
      const taskDir = join(l.state, 'skiff/n1/tasks/orphan');
      mkdirSync(taskDir, { recursive: true });
      writeFileSync(join(taskDir, 'init.pid'), '4242');
      const before = Math.floor(Date.now() / 1000);
      const result = shim(l.bundle, ['-namespace', 'n1', '-address', l.address, '-id', 'orphan', 'delete']);
      expect(result.status).toBe(0);
      // Without the task's OCI runtime record (docs/on-disk-layout.md) there is nothing to kill with: said in one line.
      expect(result.stderr.toString()).toMatch(
        /^containerd-shim-skiff-v2: cannot read .*\/tasks\/orphan\/oci-runtime\.json \(No such file or directory\): the container orphan may still run\n$/,
      );
      const reply = task.v2.DeleteResponse.deserialize(result.stdout);
      expect([reply.pid, reply.exit_status]).toEqual([4242, 137]);
      expect(reply.exited_at.seconds).toBeGreaterThanOrEqual(before);
      expect(existsSync(taskDir)).toBe(false);
    });

    it('refuses a bundle outside containerd state, and ids that are not plain names, in one line', () => {
      const elsewhere = mkdtempSync(join(tmpdir(), 'skiff-bin-'));
      made.push(elsewhere);
      const outside = shim(elsewhere, ['-namespace', 'n', '-address', '/x', '-id', 'a', 'start']);
      expect(outside.status).toBe(1);
      expect(outside.stderr.toString()).toMatch(/^containerd-shim-skiff-v2: the bundle is not under containerd's/);
      const l = layout('n1', 'x');
      made.push(l.root);
      const bad = shim(l.bundle, ['-namespace', '../n', '-address', l.address, '-id', 'x', 'start']);
      expect(bad.status).toBe(1);
      expect(bad.stderr.toString().trim().split('\n')).toHaveLength(1);
    });

    it('start fails in one line, and leaves no socket, when SKIFF_NODE names no executable', () => {
      const l = layout('n2', 'c1');
      made.push(l.root);
      const args = ['-namespace', 'n2', '-address', l.address, '-id', 'c1', 'start'];
      const result = shim(l.bundle, args, { SKIFF_NODE: '/nonexistent/node' });
      expect(result.status).toBe(1);
      expect(result.stderr.toString()).toBe(
        "containerd-shim-skiff-v2: SKIFF_NODE=/nonexistent/node in containerd's environment is not an executable file: " +
          'set it to the path of Node.js 20 or newer (`command -v node` where skiff was installed)\n',
      );
      expect(result.stdout.length).toBe(0);
      expect(socketsIn(join(l.state, 'skiff'))).toEqual([]);
    });

    it('start fails in one line, and leaves no socket, when the Node.js it found cannot be run', () => {
      const l = layout('n2', 'c2');
      made.push(l.root);
      const node = join(l.root, 'node');
      writeFileSync(node, '#!/nonexistent/interpreter\n', { mode: 0o755 });
      const args = ['-namespace', 'n2', '-address', l.address, '-id', 'c2', 'start'];
      const result = shim(l.bundle, args, { SKIFF_NODE: node });
      expect(result.status).toBe(1);
      expect(result.stderr.toString()).toBe(
        `containerd-shim-skiff-v2: cannot run ${node} (No such file or directory): set SKIFF_NODE=/path/to/node (Node.js 20 or newer) in containerd's environment\n`,
      );
      expect(result.stdout.length).toBe(0);
      expect(socketsIn(join(l.state, 'skiff'))).toEqual([]);
    });

    if (process.getuid?.() === 0)
      describe('as root, it runs nothing a user other than root can change (docs/install.md)', () => {
        const USER = 65534; // nobody
        /** A stand-in for node that leaves a mark when run: it must never be. */
        const fakeNode = (path: string, mark: string) =>
          writeFileSync(path, `#!/bin/sh\ntouch ${mark}\nexit 1\n`, { mode: 0o755 });
        const refused = (l: ReturnType<typeof layout>, env: NodeJS.ProcessEnv, keeper: boolean, binary = SHIM) => {
          const args = ['-namespace', 'n6', '-address', l.address, '-id', 'c1', 'start'];
          const result = spawnSync(binary, args, {
            cwd: l.bundle,
            encoding: 'buffer',
            timeout: 10_000,
            env: { ...process.env, ...(keeper ? {} : NO_KEEPER), ...env },
          });
          return { status: result.status, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
        };
        const line = (path: string, why: string) =>
          `containerd-shim-skiff-v2: refusing to run ${path} as root: ${why}; make it and every directory above it owned by root and writable by root only (chown root:root, chmod go-w), or install skiff and Node.js under a root-owned prefix (docs/install.md)\n`;

        it.each([
          ['the file is owned by another user', 'owner'],
          ['a directory above it is owned by another user', 'dir-owner'],
          ['a directory above it is group-writable', 'dir-group'],
          ['the file is writable by others', 'file-other'],
          ['it is reached through a link in a directory another user owns', 'link'],
          ['it is reached through a link another user owns in a sticky directory (/tmp)', 'sticky-link'],
        ])('node: %s -> refused in one line naming the path, node never run, no socket', (_, how) => {
          for (const keeper of [false, true]) {
            const l = layout('n6', 'c1');
            made.push(l.root);
            const mark = join(l.root, 'node-ran');
            const dir = join(l.root, 'nodes', 'bin');
            mkdirSync(dir, { recursive: true, mode: 0o755 });
            let node = join(dir, 'node');
            fakeNode(node, mark);
            let shown = node;
            let why = '';
            if (how === 'owner') {
              chownSync(node, USER, USER);
              why = `${node} is owned by uid ${USER}`;
            } else if (how === 'dir-owner') {
              chownSync(join(l.root, 'nodes'), USER, USER);
              why = `${join(l.root, 'nodes')} is owned by uid ${USER}`;
            } else if (how === 'dir-group') {
              chownSync(dir, 0, 100);
              chmodSync(dir, 0o775);
              why = `${dir} is writable by group 100`;
            } else if (how === 'file-other') {
              chmodSync(node, 0o757);
              why = `${node} is writable by every user`;
            } else if (how === 'sticky-link') {
              // The sticky bit keeps others from replacing the link, not its owner: they could
              // re-point it once it was judged.
              const sticky = join(l.root, 'sticky');
              mkdirSync(sticky);
              chmodSync(sticky, 0o1777);
              shown = join(sticky, 'node');
              symlinkSync(node, shown);
              lchownSync(shown, USER, USER);
              node = shown;
              why = `${shown} is owned by uid ${USER}`;
            } else {
              const links = join(l.root, 'links');
              mkdirSync(links, { mode: 0o755 });
              chownSync(links, USER, USER);
              symlinkSync(node, join(links, 'node'));
              shown = join(links, 'node');
              node = shown;
              why = `${links} is owned by uid ${USER}`;
            }
            const result = refused(l, { SKIFF_NODE: node }, keeper);
            expect(result).toEqual({ status: 1, stdout: '', stderr: line(shown, why) });
            expect(existsSync(mark)).toBe(false);
            expect(socketsIn(join(l.state, 'skiff'))).toEqual([]);
          }
        });

        // bin/loader.js holds the bundle loader the daemon script uses.
        it.each([
          ['bin/containerd-daemon.js', 'n6'],
          ['bin/loader.js', 'n7'],
        ])("the package's code: a %s another user owns is refused, node never run", (file, ns) => {
          const l = layout(ns, 'c1');
          made.push(l.root);
          const pkg = join(l.root, 'pkg');
          mkdirSync(join(pkg, 'build/Release'), { recursive: true });
          mkdirSync(join(pkg, 'bin'));
          copyFileSync(BUILT, join(pkg, 'build/Release/containerd-shim-skiff-v2'));
          chmodSync(join(pkg, 'build/Release/containerd-shim-skiff-v2'), 0o755);
          for (const code of ['bin/containerd-daemon.js', 'bin/loader.js'])
            writeFileSync(join(pkg, code), '// stand-in\n');
          const script = join(pkg, file);
          chownSync(script, USER, USER);
          const mark = join(l.root, 'node-ran');
          const node = join(l.root, 'node');
          fakeNode(node, mark);
          const result = refused(l, { SKIFF_NODE: node }, false, join(pkg, 'build/Release/containerd-shim-skiff-v2'));
          expect(result).toEqual({ status: 1, stdout: '', stderr: line(script, `${script} is owned by uid ${USER}`) });
          expect(existsSync(mark)).toBe(false);
        });

        /** A root-owned copy of the package as it installs (docs/install.md, "The package"): its scripts, the
         * containerd bundle with its V8 code cache, and the native parts prebuilt for this machine, which
         * node-gyp-build picks (no build/ there). The shim runs from it, so this is the package it judges. */
        const ARCH = process.arch === 'arm64' ? 'arm64' : 'x64';
        const PARTS = `prebuilds/linux-${ARCH}`;
        const installedCopy = (root: string) => {
          const pkg = join(root, 'pkg');
          for (const dir of ['bin', 'dist', PARTS]) mkdirSync(join(pkg, dir), { recursive: true });
          const code = ['bin/containerd-daemon.js', 'bin/loader.js', 'bin/containerd-shim-skiff-v2', 'package.json'];
          for (const file of [...code, 'dist/containerd.bundle.js', 'dist/containerd.bundle.js.cache'])
            copyFileSync(resolve(__dirname, '../../..', file), join(pkg, file));
          const built = resolve(BUILT, '..');
          copyFileSync(join(built, 'skiff_native.node'), join(pkg, PARTS, 'skiff.glibc.node'));
          for (const program of ['skiff-gate', 'containerd-shim-skiff-v2']) {
            copyFileSync(join(built, program), join(pkg, PARTS, program));
            chmodSync(join(pkg, PARTS, program), 0o755);
          }
          return { pkg, binary: join(pkg, PARTS, 'containerd-shim-skiff-v2') };
        };

        // What the list of names missed: the addon node-gyp-build loads, and the code cache V8 runs.
        it.each([
          [`${PARTS}/skiff.glibc.node`, 'n8'],
          ['dist/containerd.bundle.js.cache', 'n9'],
        ])(
          'the package as it installs: a %s another user owns is refused in one line naming it, node never run',
          (file, ns) => {
            for (const keeper of [false, true]) {
              const l = layout(ns, 'c1');
              made.push(l.root);
              const { pkg, binary } = installedCopy(l.root);
              const mark = join(l.root, 'node-ran');
              const node = join(l.root, 'node');
              fakeNode(node, mark);
              const planted = join(pkg, file);
              chownSync(planted, USER, USER);
              const result = refused(l, { SKIFF_NODE: node }, keeper, binary);
              expect(result).toEqual({
                status: 1,
                stdout: '',
                stderr: line(planted, `${planted} is owned by uid ${USER}`),
              });
              expect(existsSync(mark)).toBe(false);
              expect(socketsIn(join(l.state, 'skiff'))).toEqual([]);
            }
          },
        );

        it("the package as it installs, all root's: start runs the Node path it judged, its links resolved", async () => {
          const l = layout('n10', 'c1');
          made.push(l.root);
          const { binary } = installedCopy(l.root);
          const mark = join(l.root, 'node-ran');
          const node = join(l.root, 'nodes/node');
          mkdirSync(join(l.root, 'nodes'));
          // Records the path it was run by (a shell script's $0 is the path execve was given), whole or
          // not at all: start returns once the exec worked, so the script may not have run yet.
          writeFileSync(node, `#!/bin/sh\necho "$0" > ${mark}.part && mv ${mark}.part ${mark}\n`, { mode: 0o755 });
          symlinkSync('nodes/node', join(l.root, 'node'));
          const result = refused(l, { SKIFF_NODE: join(l.root, 'node') }, false, binary);
          expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
          await waitFor('the stand-in for node to record its path', () => existsSync(mark));
          expect(readFileSync(mark, 'utf8')).toBe(`${node}\n`);
        });
      });

    it("-v prints its version, the package's, as containerd's shims do", () => {
      const { version } = JSON.parse(readFileSync(resolve(__dirname, '../../../package.json'), 'utf8')) as {
        version: string;
      };
      const result = shim(tmpdir(), ['-v']);
      expect({ status: result.status, stdout: result.stdout.toString() }).toEqual({
        status: 0,
        stdout: `containerd-shim-skiff-v2 ${version}\n`,
      });
    });

    // Whatever the container's annotations: a pod's, none (ctr run), or a runc group that
    // decides the group without the policy.
    it.each([
      ['a pod', { 'io.kubernetes.cri.sandbox-id': 'sb1' }],
      ['no annotation', {}],
      ['a runc group', { 'io.containerd.runc.v2.group': 'g' }],
    ])(
      'start refuses a SKIFF_SHIM_GROUP other than namespace or pod in one line, before binding anything (%s)',
      (_, annotations) => {
        const l = layout('n4', 'c1', { annotations });
        made.push(l.root);
        const args = ['-namespace', 'n4', '-address', l.address, '-id', 'c1', 'start'];
        const result = shim(l.bundle, args, { SKIFF_SHIM_GROUP: 'pods' });
        expect(result.status).toBe(1);
        expect(result.stderr.toString()).toBe(
          "containerd-shim-skiff-v2: SKIFF_SHIM_GROUP in containerd's environment must be `namespace` or `pod`, not: pods\n",
        );
        expect(result.stdout.length).toBe(0);
        expect(existsSync(join(l.state, 'skiff'))).toBe(false);
      },
    );

    if (process.getuid?.() === 0)
      it('without pod keepers, start serves the pods of a namespace together; SKIFF_SHIM_GROUP=pod, or a runc group annotation, keeps them apart', async () => {
        const pod = (id: string, sandbox: string, extra: Record<string, string> = {}) => {
          const bundle = join(l.state, 'io.containerd.runtime.v2.task/n5', id);
          mkdirSync(bundle, { recursive: true });
          const annotations = { 'io.kubernetes.cri.sandbox-id': sandbox, ...extra };
          writeFileSync(join(bundle, 'config.json'), JSON.stringify({ annotations }));
          return bundle;
        };
        const l = layout('n5', 'first');
        made.push(l.root);
        const start = (id: string, bundle: string, env: NodeJS.ProcessEnv = {}) => {
          const result = shim(bundle, ['-namespace', 'n5', '-address', l.address, '-id', id, 'start'], {
            ...NO_KEEPER,
            ...env,
          });
          expect(result.stderr.toString()).toBe('');
          return result.stdout.toString();
        };
        try {
          const shared = start('a1', pod('a1', 'sandbox-a'));
          expect(start('b1', pod('b1', 'sandbox-b'))).toBe(shared);
          expect(start('b2', pod('b2', 'sandbox-b'), { SKIFF_SHIM_GROUP: 'namespace' })).toBe(shared);
          const podA = start('a2', pod('a2', 'sandbox-a'), { SKIFF_SHIM_GROUP: 'pod' });
          const podB = start('b3', pod('b3', 'sandbox-b'), { SKIFF_SHIM_GROUP: 'pod' });
          expect(start('a3', pod('a3', 'sandbox-a'), { SKIFF_SHIM_GROUP: 'pod' })).toBe(podA);
          const grouped = start('c1', pod('c1', 'sandbox-a', { 'io.containerd.runc.v2.group': 'g' }));
          expect(new Set([shared, podA, podB, grouped]).size).toBe(4);
          expect(groupServerPids(l.root)).toHaveLength(4);
        } finally {
          for (const pid of groupServerPids(l.root)) process.kill(pid, 'SIGTERM');
        }
      });

    if (process.getuid?.() === 0)
      it('without pod keepers, start makes one serving process per group: the same address for its second container, socket 0600 in a 0700 dir', async () => {
        const group = { annotations: { 'io.containerd.runc.v2.group': 'pod-a' } };
        const a = layout('n3', 'a', group);
        made.push(a.root);
        const bBundle = join(a.state, 'io.containerd.runtime.v2.task/n3/b');
        mkdirSync(bBundle, { recursive: true });
        writeFileSync(join(bBundle, 'config.json'), JSON.stringify(group));
        const args = (id: string) => ['-namespace', 'n3', '-address', a.address, '-id', id, 'start'];
        const first = shim(a.bundle, args('a'), NO_KEEPER);
        const second = shim(bBundle, args('b'), NO_KEEPER);
        try {
          expect(first.status).toBe(0);
          const address = first.stdout.toString();
          expect(address).toMatch(/^unix:\/\/.*\/state\/skiff\/[0-9a-f]{16}\.sock$/);
          expect(second.stdout.toString()).toBe(address);
          expect(readFileSync(join(a.bundle, 'address'), 'utf8')).toBe(address);
          const socket = address.slice('unix://'.length);
          expect(await socketAccepts(socket)).toBe(true);
          expect(statSync(socket).mode & 0o777).toBe(0o600);
          expect(statSync(join(a.state, 'skiff')).mode & 0o777).toBe(0o700);
          expect(groupServerPids(a.root)).toHaveLength(1);
        } finally {
          for (const pid of groupServerPids(a.root)) process.kill(pid, 'SIGTERM');
        }
      });
  });

if (LINUX)
  describe("the PATH's containerd-shim-skiff-v2 (bin/, a script that chooses the native binary)", () => {
    const { version } = JSON.parse(readFileSync(resolve(__dirname, '../../../package.json'), 'utf8')) as {
      version: string;
    };
    const root = mkdtempSync(join(tmpdir(), 'skiff-wrapper-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    /** `-v` through `path` with an empty PATH: the script can run no readlink or uname, only itself and the binary. */
    const versionThrough = (path: string) => {
      const result = spawnSync(path, ['-v'], { encoding: 'utf8', env: { PATH: '' } });
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    };
    const ARCH = process.arch === 'arm64' ? 'arm64' : 'x64';

    it("npm's global layout (<prefix>/bin -> ../lib/node_modules/skiff-cli/bin) with prebuilt parts, forking nothing", () => {
      const pkg = join(root, 'prefix/lib/node_modules/skiff-cli');
      mkdirSync(join(pkg, 'bin'), { recursive: true });
      mkdirSync(join(pkg, `prebuilds/linux-${ARCH}`), { recursive: true });
      copyFileSync(SHIM, join(pkg, 'bin/containerd-shim-skiff-v2'));
      copyFileSync(BUILT, join(pkg, `prebuilds/linux-${ARCH}/containerd-shim-skiff-v2`));
      mkdirSync(join(root, 'prefix/bin'));
      symlinkSync(
        '../lib/node_modules/skiff-cli/bin/containerd-shim-skiff-v2',
        join(root, 'prefix/bin/containerd-shim-skiff-v2'),
      );
      expect(versionThrough(join(root, 'prefix/bin/containerd-shim-skiff-v2'))).toEqual({
        status: 0,
        stdout: `containerd-shim-skiff-v2 ${version}\n`,
        stderr: '',
      });
    });

    it('a checkout on the PATH (its build/Release), forking nothing', () => {
      expect(versionThrough(SHIM)).toMatchObject({ status: 0, stdout: `containerd-shim-skiff-v2 ${version}\n` });
    });

    it('any other link to it, however chained, through readlink', () => {
      symlinkSync(SHIM, join(root, 'first'));
      symlinkSync(join(root, 'first'), join(root, 'containerd-shim-skiff-v2'));
      const result = spawnSync(join(root, 'containerd-shim-skiff-v2'), ['-v'], { encoding: 'utf8' });
      expect(result).toMatchObject({ status: 0, stdout: `containerd-shim-skiff-v2 ${version}\n` });
      expect(versionThrough(join(root, 'containerd-shim-skiff-v2')).status).not.toBe(0);
    });
  });

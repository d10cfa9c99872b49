import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import fc from 'fast-check';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { task } from '../../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import { containerd as runc } from '../../../src/adapters/shim/wire/proto/generated/containerd/runc';
import { google } from '../../../src/adapters/shim/wire/proto/generated/google/protobuf/any';
import * as layout from '../../../src/adapters/shim/outbound/process-runtime/task-layout';
import { groupServerPids } from '../../e2e/containerd/skiff-support';
import { argAfter, argvOf, parentOf, pids } from '../../support/procs';
import { processRuns } from '../../support/containerd';
import { waitFor } from '../../support/wait-for';
import { SanitizerRuns } from '../support/sanitizer-run';
import { SanitizedProgram } from '../support/sanitized-program';

/**
 * containerd-shim-skiff-v2's start and delete paths and its bad input, as containerd runs it
 * (cwd = the bundle under <state>/io.containerd.runtime.v2.task/<ns>/<id>), and `serve`, as a
 * node's systemd unit runs it (docs/node-daemon.md).
 */
const made: string[] = [];
/** The `serve` supervisors started, ended at clean-up if a case left one running. */
const supervisors: ChildProcess[] = [];

function containerdState(): string {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-asan-'));
  made.push(dir);
  return dir;
}

/** A bundle where containerd makes it, with `config` as its config.json (none when null). */
function bundleIn(state: string, ns: string, id: string, config: string | null = '{}'): string {
  const bundle = join(state, layout.BUNDLES_DIR, ns, id);
  mkdirSync(bundle, { recursive: true });
  if (config !== null) writeFileSync(join(bundle, 'config.json'), config);
  return bundle;
}

function shim(runs: SanitizerRuns, binary: string, cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  // The runtime options containerd writes on start's stdin: read to the end and dropped.
  const result = runs.run(binary, args, { cwd, env, input: Buffer.alloc(10_000, 7) });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

/** Runs start in a fresh bundle with `config` and expects one line on stderr matching `line`. */
function startRefuses(runs: SanitizerRuns, binary: string, config: string | null, line: RegExp, env = {}) {
  const state = containerdState();
  const bundle = bundleIn(state, 'n', 'c1', config);
  const result = shim(runs, binary, bundle, ['-namespace', 'n', '-address', '/c.sock', '-id', 'c1', 'start'], env);
  expect({ status: result.status, stdout: result.stdout.length }).toEqual({ status: 1, stdout: 0 });
  expect(result.stderr).toMatch(line);
  expect(result.stderr.split('\n')).toHaveLength(2);
}

const GROUP = 'io.containerd.runc.v2.group';

/** A group's hash as native/common/task-layout.c computes it (FNV-1a 64, each string followed by 0xff), in hex. */
function groupHash(address: string, ns: string, group: string): string {
  let h = 0xcbf29ce484222325n;
  for (const text of [address, ns, group])
    for (const byte of [...Buffer.from(text), 0xff]) h = BigInt.asUintN(64, (h ^ BigInt(byte)) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}

/**
 * A serving process's stand-in on the group socket, in a process of its own (the shim runs
 * synchronously): writes the first connection's preamble to `told`, with whether the OCI
 * runtime had run by then, and closes it (`answer`) or keeps it open (`hold`); `late` listens
 * only once the OCI runtime has run, as a serving process started meanwhile, and answers.
 */
async function servingStandIn(socket: string, told: string, ranFile: string, mode: string): Promise<ChildProcess> {
  const script = `
    const net = require('node:net'), fs = require('node:fs');
    const [socket, told, ranFile, mode] = process.argv.slice(1);
    const server = net.createServer((c) => {
      let got = Buffer.alloc(0);
      c.on('data', (d) => {
        got = Buffer.concat([got, d]);
        if (got.length < 8 || got.length < 8 + got.readUInt16BE(6)) return;
        fs.writeFileSync(told, JSON.stringify({ bytes: got.toString('latin1'), killedBefore: fs.existsSync(ranFile) }));
        if (mode !== 'hold') c.end();
      });
    });
    const listen = () => server.listen(socket, () => mode !== 'late' && process.stdout.write('ready\\n'));
    if (mode !== 'late') listen();
    else {
      process.stdout.write('ready\\n');
      const poll = setInterval(() => fs.existsSync(ranFile) && (clearInterval(poll), listen()), 5);
    }`;
  rmSync(socket, { force: true });
  const child = spawn(process.execPath, ['-e', script, socket, told, ranFile, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', () => reject(new Error('the serving stand-in exited')));
  });
  return child;
}

/** Settings of the environment `serve` refuses, or that would change where it serves: not inherited. */
// No standby unless a case asks for one: its 10 s would otherwise come within a slow case.
const SERVE_UNSET = {
  SKIFF_KEEPER: undefined,
  SKIFF_SHIM_GROUP: undefined,
  TTRPC_ADDRESS: undefined,
  SKIFF_STANDBY: '0',
};

/**
 * `serve` with a temporary state dir and a stand-in for containerd's address (nothing listens
 * there: the serving process needs containerd only for a task's calls), the real Node as the
 * serving process, stdin on /dev/null as systemd gives it (or closed): the supervisor's process,
 * its exit, its stderr so far, and `serving(not)`: the pid of the serving process the group's pid
 * file names once it serves (a child of the supervisor running containerd-daemon.js on the
 * group socket), other than `not`.
 */
function serveInBackground(runs: SanitizerRuns, binary: string, env: NodeJS.ProcessEnv, stdinClosed: boolean) {
  const state = containerdState();
  const address = join(state, 'containerd.sock');
  const socket = join(state, layout.SKIFF_DIR, `${groupHash(address, 'n', '')}.sock`);
  const pidFile = socket.replace(/\.sock$/, '.pid');
  const args = ['-namespace', 'n', '-address', address, '-state', state, 'serve'];
  // With stdin closed, through sh's exec: the same pid, then the shim.
  const [file, argv] = stdinClosed ? ['/bin/sh', ['-c', 'exec "$0" "$@" <&-', binary, ...args]] : [binary, args];
  const supervisor = spawn(file, argv, {
    cwd: '/',
    stdio: ['ignore', 'ignore', 'pipe'],
    env: runs.env({ ...process.env, ...SERVE_UNSET, SKIFF_NODE: process.execPath, ...env }),
  });
  supervisors.push(supervisor);
  let stderr = '';
  supervisor.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    supervisor.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const named = (): number => {
    try {
      return Number(readFileSync(pidFile, 'utf8').trim());
    } catch {
      return 0;
    }
  };
  const serving = (not = 0) =>
    waitFor(
      () =>
        `a serving process of the supervisor on ${socket} other than ${not} (the pid file names ${named()}); ${stderr}`,
      () => {
        if (supervisor.exitCode !== null) throw new Error(`serve exited (${supervisor.exitCode}): ${stderr}`);
        const pid = named();
        const argv = argvOf(pid);
        const ours = pid !== not && parentOf(pid) === supervisor.pid && argAfter(argv, '--socket') === socket;
        return ours && argv.some((a) => a.endsWith('/bin/containerd-daemon.js')) && pid;
      },
      20_000,
    );
  return { supervisor, socket, exited, serving, stderr: () => stderr };
}

/**
 * A full run of `serve`: it serves, starts a new serving process after a SIGKILL, with
 * `handOver` follows the successor of a hand-over (SIGUSR2 to Node, as `skiff containerd
 * restart` sends it) given to it as a child subreaper, and leaves at SIGTERM with Node.
 */
async function serveRestartStop(
  runs: SanitizerRuns,
  binary: string,
  env: NodeJS.ProcessEnv,
  { stdinClosed = false, handOver = false } = {},
) {
  const run = serveInBackground(runs, binary, env, stdinClosed);
  const first = await run.serving();
  expect(statSync(run.socket).isSocket()).toBe(true);
  if (env.SKIFF_SHIM_LINGER_MS !== undefined) {
    // The unit keeps its serving process: it did not linger out, nor remove the socket the supervisor holds.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect([processRuns(first), statSync(run.socket).isSocket()]).toEqual([true, true]);
  }
  process.kill(first, 'SIGKILL');
  const second = await run.serving(first);
  expect(run.stderr()).toContain(
    `skiff serve[n]: the serving process ${first} was killed by signal 9; starting a new one, which takes its tasks over\n`,
  );
  let last = second;
  if (handOver) {
    process.kill(second, 'SIGUSR2');
    last = await run.serving(second);
    const line = `skiff serve[n]: the serving process ${second} handed over to ${last}\n`;
    await waitFor(`"${line}" in ${run.stderr()}`, () => run.stderr().includes(line));
  }
  run.supervisor.kill('SIGTERM');
  expect(await run.exited).toEqual({ code: 0, signal: null });
  expect(processRuns(last)).toBe(false);
  const lines = run.stderr().split('\n');
  expect(lines.filter((l) => l.startsWith('skiff serve['))).toEqual([
    `skiff serve[n]: the serving process ${first} was killed by signal 9; starting a new one, which takes its tasks over`,
    ...(handOver ? [`skiff serve[n]: the serving process ${second} handed over to ${last}`] : []),
    'skiff serve[n]: stopping: the serving process releases its tasks to the pod keepers',
  ]);
}

/**
 * `serve` with its standby (docs/node-daemon.md, "The standby"), due at once: a SIGKILL of the
 * serving process promotes the standby (the same pid, renamed containerd-daemon.js), a new
 * standby follows, and SIGTERM lets both go.
 */
async function serveWithStandby(runs: SanitizerRuns, binary: string) {
  const run = serveInBackground(
    runs,
    binary,
    { NOTIFY_SOCKET: undefined, SKIFF_STANDBY: undefined, SKIFF_STANDBY_DELAY_MS: '0' },
    false,
  );
  const standbyOf = (not = 0) =>
    waitFor(`a standby other than ${not}: ${run.stderr()}`, () =>
      pids().find(
        (pid) =>
          pid !== not &&
          parentOf(pid) === run.supervisor.pid &&
          argvOf(pid).some((a) => a.endsWith('/bin/containerd-standby.js')),
      ),
    );
  const first = await run.serving();
  const standby = await standbyOf();
  process.kill(first, 'SIGKILL');
  const second = await run.serving(first);
  expect(second).toBe(standby);
  expect(run.stderr()).toContain(
    `skiff serve[n]: the serving process ${first} was killed by signal 9; its standby ${standby} takes its tasks over\n`,
  );
  const next = await standbyOf(standby);
  run.supervisor.kill('SIGTERM');
  expect(await run.exited).toEqual({ code: 0, signal: null });
  expect(processRuns(second)).toBe(false);
  await waitFor('the standby to leave', () => !processRuns(next));
}

export const containerdShim: SanitizedProgram = {
  target: 'containerd-shim-skiff-v2',
  cases: [
    {
      name: 'usage, and flags it cannot read, in one line',
      run(binary, runs) {
        const cwd = tmpdir();
        expect(shim(runs, binary, cwd, []).status).toBe(2);
        const refused: Array<[string[], string]> = [
          [['-namespace'], 'flag needs a value: -namespace'],
          [['-debug=maybe', 'start'], '-debug takes true or false, not maybe'],
          [['start', 'delete'], 'one action only, not both start and delete'],
          [['-=x', 'start'], 'bad flag syntax: -=x'],
        ];
        for (const [args, line] of refused)
          expect(shim(runs, binary, cwd, args)).toMatchObject({
            status: 1,
            stderr: `containerd-shim-skiff-v2: ${line}\n`,
          });
        const long = shim(runs, binary, cwd, [
          '-namespace',
          'n',
          '-id',
          'i',
          '-bundle',
          `/${'x'.repeat(5000)}`,
          'delete',
        ]);
        expect(long.status).toBe(1);
        expect(long.stderr).toMatch(/^containerd-shim-skiff-v2: a path is longer than PATH_MAX.*: -bundle\n$/);
      },
    },
    {
      name: '-info: RuntimeInfo with and without options, a runtime without features, input it refuses',
      run(binary, runs) {
        const dir = containerdState();
        const fake = join(dir, 'fake-runc');
        writeFileSync(fake, `#!/bin/sh\n[ "$1" = features ] && echo '{"ociVersionMin":"1.0.0"}'\n`, { mode: 0o755 });
        const failing = join(dir, 'failing-runc');
        writeFileSync(failing, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
        const info = (input: Uint8Array) => {
          const result = runs.run(binary, ['-info'], { cwd: dir, env: { PATH: `${dir}:/usr/bin:/bin` }, input });
          return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
        };
        const options = (name: string) =>
          new google.protobuf.Any({
            type_url: 'containerd.runc.v1.Options',
            value: new runc.runc.v1.Options({ binary_name: name }).serialize(),
          }).serialize();
        const withFeatures = info(options('fake-runc'));
        expect(withFeatures.status).toBe(0);
        expect(withFeatures.stdout.toString('latin1')).toContain('{"ociVersionMin":"1.0.0"}');
        const without = info(options(failing));
        expect(without.status).toBe(0);
        expect(without.stdout.toString('latin1')).not.toContain('runtime-spec/1/features');
        expect(info(options('missing-runc'))).toMatchObject({ status: 1 });
        expect(info(Buffer.alloc(10_000, 7))).toMatchObject({
          status: 1,
          stderr: 'containerd-shim-skiff-v2: the runtime options on stdin are not a google.protobuf.Any\n',
        });
        expect(info(Buffer.alloc(2 << 20, 0x08))).toMatchObject({ status: 1 });
        // No options: the runc on containerd's PATH, here the stand-in.
        copyFileSync(fake, join(dir, 'runc'));
        expect(info(new Uint8Array()).stdout.toString('latin1')).toContain('{"ociVersionMin":"1.0.0"}');
      },
    },
    {
      // runtime-info.c walks containerd's Any by hand: any bytes on stdin, shaped like an Any or
      // not, end in RuntimeInfo (0) or one line saying why not (1), never a signal or a report;
      // a type_url or binary_name with a newline in it does not break that line.
      name: '-info: any bytes on stdin, an Any of runc options or not (property, random inputs)',
      run(binary, runs) {
        const dir = containerdState();
        const any = (type_url: string, value: Uint8Array) => new google.protobuf.Any({ type_url, value }).serialize();
        const input = fc.oneof(
          fc.uint8Array({ maxLength: 256 }),
          fc
            .tuple(fc.string({ unit: 'binary-ascii', maxLength: 40 }), fc.uint8Array({ maxLength: 64 }))
            .map(([t, v]) => any(t, v)),
          fc.uint8Array({ maxLength: 64 }).map((v) => any('containerd.runc.v1.Options', v)),
          fc
            .string({ unit: 'binary-ascii', maxLength: 40 })
            .map((name) =>
              any('containerd.runc.v1.Options', new runc.runc.v1.Options({ binary_name: name }).serialize()),
            ),
          fc
            .tuple(fc.uint8Array({ maxLength: 32 }), fc.integer({ min: 1, max: 16 }))
            .map(([bytes, cut]) => any('containerd.runc.v1.Options', bytes).slice(0, -cut)),
        );
        fc.assert(
          fc.property(input, (stdin) => {
            // PATH only the empty state dir: a random binary_name finds nothing to run.
            const result = runs.run(binary, ['-info'], { cwd: dir, env: { PATH: dir }, input: stdin });
            const stderr = result.stderr.toString();
            expect(result.signal).toBeNull();
            expect([0, 1]).toContain(result.status);
            if (result.status === 1) expect(stderr).toMatch(/^containerd-shim-skiff-v2: [^\n]+\n$/);
          }),
          { numRuns: 100 },
        );
      },
    },
    {
      name: 'start refuses a bundle outside containerd state, names that are not identifiers, a missing config.json',
      run(binary, runs) {
        const elsewhere = containerdState();
        const outside = shim(runs, binary, elsewhere, ['-namespace', 'n', '-id', 'a', 'start']);
        expect(outside.stderr).toMatch(/^containerd-shim-skiff-v2: the bundle is not under containerd's/);
        const state = containerdState();
        const bundle = bundleIn(state, 'n', 'x');
        for (const [ns, id] of [
          ['../n', 'x'],
          ['n', 'a/b'],
          ['n', ''],
        ])
          expect(shim(runs, binary, bundle, ['-namespace', ns, '-id', id, 'start']).stderr).toMatch(
            /^containerd-shim-skiff-v2: -namespace and -id must be containerd identifiers/,
          );
        startRefuses(runs, binary, null, /cannot read config\.json in the bundle \(No such file or directory\)/);
      },
    },
    {
      name: 'start refuses a config.json that is not JSON, or whose annotation is not a usable string',
      run(binary, runs) {
        startRefuses(runs, binary, `{"annotations": {"${GROUP}": "g"}`, /config\.json is not valid JSON: /);
        startRefuses(runs, binary, `{"a": ${'['.repeat(100_000)}}`, /config\.json is not valid JSON: /);
        startRefuses(runs, binary, '\0{}', /config\.json is not valid JSON: /);
        startRefuses(runs, binary, `{"annotations": {"${GROUP}": 7}}`, /the annotation .*group in .* is not a string/);
        const long = JSON.stringify({ annotations: { [GROUP]: '\\u00e9'.repeat(2100) } }).replace(/\\\\/g, '\\');
        startRefuses(runs, binary, long, /the annotation .*group in .* is too long/);
        startRefuses(runs, binary, '{}', /SKIFF_SHIM_GROUP .* not: pods$/m, { SKIFF_SHIM_GROUP: 'pods' });
      },
    },
    {
      name: 'start fails in one line and leaves no socket when Node.js cannot be run',
      run(binary, runs) {
        const state = containerdState();
        const bundle = bundleIn(state, 'n', 'c1');
        const args = ['-namespace', 'n', '-address', join(state, 'c.sock'), '-id', 'c1', 'start'];
        const result = shim(runs, binary, bundle, args, { SKIFF_NODE: '/nonexistent/node' });
        expect(result.status).toBe(1);
        expect(result.stderr).toMatch(
          /^containerd-shim-skiff-v2: SKIFF_NODE=\/nonexistent\/node .* is not an executable file: /,
        );
        const broken = join(state, 'node');
        writeFileSync(broken, '#!/nonexistent/interpreter\n', { mode: 0o755 });
        const unrunnable = shim(runs, binary, bundle, args, { SKIFF_NODE: broken });
        expect(unrunnable.status).toBe(1);
        expect(unrunnable.stderr).toMatch(/cannot run .*\/node \(No such file or directory\): set SKIFF_NODE=/);
        const skiffDir = join(state, layout.SKIFF_DIR);
        expect(existsSync(skiffDir) ? readdirSync(skiffDir).filter((f) => f.endsWith('.sock')) : []).toEqual([]);
      },
    },
    {
      name: "without pod keepers, start binds the group's socket and starts its serving process; the group's next container is sent there",
      run(binary, runs) {
        const state = containerdState();
        const config = JSON.stringify({
          process: { args: ['sh'], env: [`X="${GROUP}":"no"`] },
          annotations: { 'io.kubernetes.cri.sandbox-id': 'sb', [GROUP]: `g\\"1\u00e9${'x'.repeat(1000)}` },
        });
        const args = (id: string) => [
          '-namespace',
          'n',
          '-address',
          join(state, 'c.sock'),
          '-id',
          id,
          '-debug',
          'start',
        ];
        const env = { SKIFF_SHIM_GROUP: 'pod', SKIFF_KEEPER: '0' };
        const first = shim(runs, binary, bundleIn(state, 'n', 'a', config), args('a'), env);
        const second = shim(runs, binary, bundleIn(state, 'n', 'b', config), args('b'), env);
        expect([first.status, first.stderr]).toEqual([0, '']);
        expect(first.stdout.toString()).toMatch(/^unix:\/\/.*\/skiff\/[0-9a-f]{16}\.sock$/);
        expect(second.stdout.toString()).toBe(first.stdout.toString());
        expect(readFileSync(join(state, layout.BUNDLES_DIR, 'n/b/address'), 'utf8')).toBe(first.stdout.toString());
      },
    },
    {
      name: 'delete: of a task already deleted, and of one left behind with or without a readable OCI runtime record',
      run(binary, runs) {
        const state = containerdState();
        const ns = 'n';
        const stateDir = layout.serverStateDir(state, ns);
        const runtime = join(state, 'oci-runtime');
        writeFileSync(runtime, `#!/bin/sh\nprintf '%s\\n' "$@" > "$0.args"\n`);
        chmodSync(runtime, 0o755);
        const deleteTask = (id: string, files: Record<string, string>) => {
          const bundle = bundleIn(state, ns, id);
          const rootfs = join(bundle, 'rootfs');
          mkdirSync(rootfs, { recursive: true });
          // As root, a rootfs still mounted, as a serving process that died leaves it: delete takes it off.
          const mounted =
            process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', 'skiff-test', rootfs]).status === 0;
          const dir = layout.taskDir(stateDir, id);
          mkdirSync(join(dir, 'criu-work'), { recursive: true });
          for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
          const result = shim(runs, binary, bundle, ['-namespace', ns, '-address', '/c.sock', '-id', id, 'delete']);
          expect(result.status).toBe(0);
          expect(existsSync(dir)).toBe(false);
          if (mounted) expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(rootfs);
          const reply = task.v2.DeleteResponse.deserialize(result.stdout);
          expect(reply.exit_status).toBe(137);
          return { pid: reply.pid, stderr: result.stderr };
        };
        const gone = shim(runs, binary, bundleIn(state, ns, 'gone'), ['-namespace', ns, '-id', 'gone', 'delete']);
        expect([gone.status, gone.stdout.length, gone.stderr]).toEqual([0, 0, '']);
        const record = JSON.stringify({ root: '/r', binary: runtime });
        expect(deleteTask('t1', { [layout.OCI_RUNTIME_FILE]: record, [layout.INIT_PID_FILE]: '77\n' })).toEqual({
          pid: 77,
          stderr: '',
        });
        expect(readFileSync(`${runtime}.args`, 'utf8')).toBe('--root\n/r\ndelete\n--force\nt1\n');
        const unreadable: Array<[string, RegExp]> = [
          [
            '{"binary": "/b", "root": ',
            /oci-runtime\.json does not name an absolute binary and root \(binary not valid JSON/,
          ],
          [
            '{"binary": "runc", "root": "/r"}',
            /oci-runtime\.json does not name an absolute binary and root \(binary found, root found\)/,
          ],
          ['{"binary": ["/b"], "root": "/r"}', /\(binary not a string, root found\)/],
        ];
        for (const [text, line] of unreadable) {
          const left = deleteTask('t2', { [layout.OCI_RUNTIME_FILE]: text, [layout.INIT_PID_FILE]: 'x' });
          expect(left.pid).toBe(0);
          expect(left.stderr).toMatch(line);
          expect(left.stderr).toMatch(/: the container t2 may still run\n$/);
        }
        const missing = deleteTask('t3', {
          [layout.OCI_RUNTIME_FILE]: JSON.stringify({ binary: '/nonexistent', root: '/r' }),
        });
        expect(missing.stderr).toBe(
          'containerd-shim-skiff-v2: cannot run /nonexistent (No such file or directory): the container t3 may still run\n',
        );
        expect(deleteTask('t4', { [layout.INIT_PID_FILE]: '99999999999' }).pid).toBe(0);
      },
    },
    {
      name: "delete: tells the serving process of the task's group to forget it before it kills the container, and goes on when it does not answer",
      async run(binary, runs) {
        const state = containerdState();
        const ns = 'n';
        const runtime = join(state, 'oci-runtime');
        // As runc, it writes what it was asked; then it waits for a serving process that a `late` stand-in starts.
        writeFileSync(
          runtime,
          `#!/bin/sh\nprintf '%s\\n' "$@" > "$0.args"\n` +
            'i=0; while [ ! -S "$STANDIN_SOCKET" ] && [ $i -lt 200 ]; do sleep 0.01; i=$((i+1)); done\n',
        );
        chmodSync(runtime, 0o755);
        mkdirSync(join(state, layout.SKIFF_DIR), { mode: 0o700 });
        const socket = join(state, layout.SKIFF_DIR, `${groupHash('/c.sock', ns, '')}.sock`);
        const deleteTask = (id: string) => {
          const dir = layout.taskDir(layout.serverStateDir(state, ns), id);
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, layout.OCI_RUNTIME_FILE), JSON.stringify({ root: '/r', binary: runtime }));
          rmSync(`${runtime}.args`, { force: true });
          const started = Date.now();
          const result = shim(
            runs,
            binary,
            bundleIn(state, ns, id),
            ['-namespace', ns, '-address', '/c.sock', '-id', id, 'delete'],
            { STANDIN_SOCKET: socket },
          );
          expect(result.status).toBe(0);
          expect(existsSync(`${runtime}.args`)).toBe(true);
          return { ...result, ms: Date.now() - started };
        };
        const told = join(state, 'told.json');
        // `late`: nobody served when delete asked first, so it asks again once the directory is gone.
        for (const mode of ['answer', 'hold', 'late']) {
          const standIn = await servingStandIn(socket, told, `${runtime}.args`, mode);
          try {
            const result = deleteTask(`t-${mode}`);
            const got = JSON.parse(readFileSync(told, 'utf8')) as { bytes: string; killedBefore: boolean };
            const fields = `task=t-${mode}\0`;
            expect(Buffer.from(got.bytes, 'latin1')).toEqual(
              Buffer.concat([Buffer.from([0xff, 0x53, 0x4b, 0x46, 1, 3, 0, fields.length]), Buffer.from(fields)]),
            );
            expect(got.killedBefore).toBe(mode === 'late');
            if (mode !== 'hold') expect([result.stderr, result.ms < 1000]).toEqual(['', true]);
            else
              expect(result.stderr).toBe(
                `containerd-shim-skiff-v2: the serving process at ${socket} did not answer within 1000 ms that it forgot the task t-hold; it may hold it until it restarts\n`,
              );
          } finally {
            standIn.kill('SIGKILL');
          }
        }
      },
    },
    {
      name: 'serve refuses in one line an -address that is not a path, SKIFF_KEEPER=0, SKIFF_SHIM_GROUP=pod, a bad namespace',
      run(binary, runs) {
        const state = containerdState();
        const serve = (ns: string, address: string, env: NodeJS.ProcessEnv = {}) => {
          const result = runs.run(binary, ['-namespace', ns, '-address', address, '-state', state, 'serve'], {
            cwd: '/',
            env: { ...SERVE_UNSET, ...env },
          });
          return { status: result.status, stdout: result.stdout.length, stderr: result.stderr.toString() };
        };
        const refused: Array<[string, string, NodeJS.ProcessEnv, string]> = [
          ['n', 'c.sock', {}, "-address must be containerd's socket path, as containerd gives it to shims: c.sock"],
          [
            'n',
            'unix:///c.sock',
            {},
            "-address must be containerd's socket path, as containerd gives it to shims: unix:///c.sock",
          ],
          [
            'n',
            '/c.sock',
            { SKIFF_KEEPER: '0' },
            'serve keeps a serving process behind pod keepers; SKIFF_KEEPER=0 serves without them: unset it',
          ],
          [
            'n',
            '/c.sock',
            { SKIFF_SHIM_GROUP: 'pod' },
            "serve keeps the namespace's serving process; SKIFF_SHIM_GROUP=pod gives each pod its own: unset it",
          ],
          [
            '../n',
            '/c.sock',
            {},
            '-namespace must be a containerd namespace (letters and digits in runs joined by . _ -): ../n',
          ],
          [
            '',
            '/c.sock',
            {},
            '-namespace must be a containerd namespace (letters and digits in runs joined by . _ -): ',
          ],
        ];
        for (const [ns, address, env, line] of refused)
          expect(serve(ns, address, env)).toEqual({
            status: 1,
            stdout: 0,
            stderr: `containerd-shim-skiff-v2: ${line}\n`,
          });
        const noAddress = runs.run(binary, ['-namespace', 'n', '-state', state, 'serve'], {
          cwd: '/',
          env: SERVE_UNSET,
        });
        expect([noAddress.status, noAddress.stderr.toString()]).toEqual([
          1,
          "containerd-shim-skiff-v2: -address must be containerd's socket path, as containerd gives it to shims: \n",
        ]);
        // Refused before anything is made in the state dir.
        expect(readdirSync(state)).toEqual([]);
      },
    },
    {
      name: 'serve without NOTIFY_SOCKET: serves the group socket, starts a new serving process after a SIGKILL, follows a hand-over, leaves with it at SIGTERM',
      run: (binary, runs) => serveRestartStop(runs, binary, { NOTIFY_SOCKET: undefined }, { handOver: true }),
    },
    {
      name: 'serve with a NOTIFY_SOCKET nobody listens on: serves, restarts, leaves as without one',
      run: (binary, runs) => serveRestartStop(runs, binary, { NOTIFY_SOCKET: join(containerdState(), 'notify.sock') }),
    },
    {
      name: "serve with SKIFF_SHIM_LINGER_MS=0 in the unit's environment and an abstract NOTIFY_SOCKET nobody binds: the serving process stays",
      run: (binary, runs) =>
        serveRestartStop(runs, binary, { SKIFF_SHIM_LINGER_MS: '0', NOTIFY_SOCKET: `@skiff-asan-${process.pid}` }),
    },
    {
      name: 'serve with a standby: a SIGKILL of the serving process promotes it, a new one follows, SIGTERM ends both',
      run: (binary, runs) => serveWithStandby(runs, binary),
    },
    {
      name: 'serve with stdin closed: the listener still reaches the serving process as fd 3',
      run: (binary, runs) => serveRestartStop(runs, binary, { NOTIFY_SOCKET: undefined }, { stdinClosed: true }),
    },
  ],
  cleanUp() {
    for (const supervisor of supervisors) if (supervisor.exitCode === null) supervisor.kill('SIGKILL');
    for (const dir of made) {
      for (const pid of groupServerPids(dir)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

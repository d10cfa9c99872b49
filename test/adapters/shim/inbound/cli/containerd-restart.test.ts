import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '../../../../../src/domain/shared/errors';
import { restartServing } from '../../../../../src/adapters/shim/inbound/cli/containerd-restart';
import { readPidFile } from '../../../../../src/adapters/shim/os/pid-file';
import { isRunning } from '../../../../../src/adapters/shim/os/serving-processes';
import { waitFor } from '../../../../support/wait-for';

/**
 * `skiff containerd restart`'s side of a hand-over (docs/upgrade.md), against real processes that
 * play the serving process: found by their pid files and command lines, refused without pod
 * keepers, signalled, and their successors awaited. The hand-over itself runs under containerd in
 * test/e2e/containerd/skiff-upgrade.test.ts.
 */
const FAKE_SERVER = `
const fs = require('node:fs');
const args = process.argv.slice(2);
const pidFile = args[args.indexOf('--socket') + 1].replace(/\\.sock$/, '') + '.pid';
if (process.env.FAKE_NO_PID_FILE !== '1') {
  fs.writeFileSync(pidFile + '.tmp', process.pid + '\\n');
  fs.renameSync(pidFile + '.tmp', pidFile);
}
process.on('SIGUSR2', () => {
  if (process.env.FAKE_HANDS_OVER !== '1') return;
  const next = require('node:child_process').spawn(process.execPath, process.argv.slice(1), {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, FAKE_HANDS_OVER: '0' },
  });
  next.unref();
  process.exit(0);
});
setInterval(() => undefined, 1000);
`;

describe('skiff containerd restart', () => {
  let state: string;
  let skiffState: string;
  let script: string;
  const started: number[] = [];
  let lines: string[];
  let warnings: string[];
  const out = (line: string) => lines.push(line);
  const warn = (line: string) => warnings.push(line);
  /** The fake script stands for the installed one; root's (the uid this test runs as, without root). */
  const options = () => ({ state, out, warn, identity: { script, uid: process.getuid?.() ?? 0 } });

  beforeEach(() => {
    state = mkdtempSync(join(tmpdir(), 'skiff-restart-'));
    skiffState = join(state, 'skiff');
    mkdirSync(skiffState, { mode: 0o700 });
    mkdirSync(join(state, 'pkg/bin'), { recursive: true });
    script = join(state, 'pkg/bin/containerd-daemon.js');
    writeFileSync(script, FAKE_SERVER);
    lines = [];
    warnings = [];
  });
  afterEach(() => {
    for (const pid of started.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    rmSync(state, { recursive: true, force: true });
  });

  /** A process with a serving process's command line, ready once it wrote its pid file (unless told not to). */
  async function fakeServer(
    group: string,
    namespace: string,
    env: Record<string, string>,
    as: { uid?: number; script?: string } = {},
  ): Promise<number> {
    const socket = join(skiffState, `${group}.sock`);
    const child: ChildProcess = spawn(
      process.execPath,
      [as.script ?? script, '--namespace', namespace, '--address', '/c.sock', '--socket', socket],
      {
        stdio: 'ignore',
        env: { PATH: process.env.PATH ?? '', ...env },
        ...(as.uid === undefined ? {} : { uid: as.uid, gid: as.uid }),
      },
    );
    started.push(child.pid as number);
    if (env.FAKE_NO_PID_FILE === '1') {
      await waitFor('the fake serving process to run', () => isRunning(child.pid as number));
      return child.pid as number;
    }
    await waitFor('the fake serving process to write its pid file', () => readPidFile(pidFile(group)) === child.pid);
    return child.pid as number;
  }

  const pidFile = (group: string) => join(skiffState, `${group}.pid`);

  it('hands each serving process over and names its successor', async () => {
    const old = await fakeServer('a1', 'k8s.io', { SKIFF_KEEPER: '1', FAKE_HANDS_OVER: '1' });
    await restartServing(options());
    const successor = readPidFile(pidFile('a1')) as number;
    started.push(successor);
    expect(successor).not.toBe(old);
    expect(isRunning(successor)).toBe(true);
    expect(isRunning(old)).toBe(false);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(`^namespace k8s.io: serving process ${old} handed over to ${successor} in \\d+\\.\\d\\d s$`),
      ),
    ]);
  });

  it('refuses, signalling none, when a serving process runs without pod keepers', async () => {
    const kept = await fakeServer('a1', 'k8s.io', { SKIFF_KEEPER: '1', FAKE_HANDS_OVER: '1' });
    const alone = await fakeServer('b2', 'default', { SKIFF_KEEPER: '0' });
    await expect(restartServing(options())).rejects.toThrow(
      `the serving process ${alone} (namespace default) runs without pod keepers, so its containers would end with it: ` +
        'nothing was restarted; remove SKIFF_KEEPER=0',
    );
    expect([isRunning(kept), isRunning(alone)]).toEqual([true, true]);
    expect(readPidFile(pidFile('a1'))).toBe(kept);
  });

  it('fails, naming the process and where to look, when a hand-over does not complete in time', async () => {
    const stuck = await fakeServer('a1', 'k8s.io', { SKIFF_KEEPER: '1', FAKE_HANDS_OVER: '0' });
    await expect(restartServing({ ...options(), timeoutMs: 300 })).rejects.toThrow(
      `the serving process ${stuck} (namespace k8s.io) did not hand over within 0.3 s: see containerd's log`,
    );
    expect(lines).toEqual([]);
  });

  const asRoot = process.getuid?.() === 0 ? it : it.skip;

  asRoot(
    "ignores, naming it on stderr, another user's process with a serving process's command line, and goes on",
    async () => {
      const kept = await fakeServer('a1', 'k8s.io', { SKIFF_KEEPER: '1', FAKE_HANDS_OVER: '1' });
      // As nobody, the installed script itself, a socket under <state>/skiff: what any local user can start.
      chmodSync(state, 0o755);
      const nobody = await fakeServer('0000', 'k8s.io', { FAKE_NO_PID_FILE: '1' }, { uid: 65534 });
      await restartServing(options());
      const successor = readPidFile(pidFile('a1')) as number;
      started.push(successor);
      expect(successor).not.toBe(kept);
      expect(isRunning(nobody)).toBe(true);
      expect(warnings).toEqual([
        `skiff: ignoring process ${nobody} (namespace k8s.io): it runs as uid 65534, not root, so it is no serving process`,
      ]);
      expect(lines).toEqual([expect.stringMatching(`^namespace k8s.io: serving process ${kept} handed over to `)]);
    },
  );

  it('ignores, naming it, a process of another script than the installed one, and goes on', async () => {
    const other = join(state, 'elsewhere/bin/containerd-daemon.js');
    mkdirSync(join(state, 'elsewhere/bin'), { recursive: true });
    writeFileSync(other, FAKE_SERVER);
    const stranger = await fakeServer('b2', 'k8s\x1b]0;x\x07', { FAKE_NO_PID_FILE: '1' }, { script: other });
    await restartServing(options());
    expect(isRunning(stranger)).toBe(true);
    // Its namespace is its own command line's, escaped.
    expect(warnings).toEqual([
      `skiff: ignoring process ${stranger} (namespace k8s\\u001b]0;x\\u0007): it runs ${other}, not the installed ` +
        `${script}, so it is no serving process`,
    ]);
    expect(lines).toEqual([`no skiff serving process runs under ${skiffState}: nothing to restart`]);
  });

  it('refuses, signalling none, when a serving process wrote no pid file', async () => {
    const kept = await fakeServer('a1', 'k8s.io', { SKIFF_KEEPER: '1', FAKE_HANDS_OVER: '1' });
    const older = await fakeServer('b2', 'k8s.io', { SKIFF_KEEPER: '1', FAKE_NO_PID_FILE: '1' });
    await expect(restartServing(options())).rejects.toThrow(
      `the serving process ${older} (namespace k8s.io) has written no pid file: it is starting (try again), or it is ` +
        'of a skiff that cannot hand over',
    );
    expect(readPidFile(pidFile('a1'))).toBe(kept);
    expect(isRunning(kept)).toBe(true);
    // Another namespace's is not in the way.
    await restartServing({ ...options(), namespace: 'default' });
    expect(lines).toEqual([
      `no skiff serving process of namespace default runs under ${skiffState}: nothing to restart`,
    ]);
  });

  it("says in one line that --state is not containerd's state directory", async () => {
    rmSync(skiffState, { recursive: true });
    writeFileSync(skiffState, '');
    await expect(restartServing(options())).rejects.toThrow(
      `cannot read ${skiffState} (ENOTDIR); --state is containerd's state directory`,
    );
  });

  it('refuses a state directory that does not exist (a mistyped --state), instead of finding nothing to restart', async () => {
    const missing = join(state, 'no-such-state');
    await expect(restartServing({ ...options(), state: missing })).rejects.toMatchObject({
      constructor: ConfigurationError,
      message: `containerd's state directory ${missing} does not exist: pass the \`state\` of containerd's config.toml with --state`,
    });
    expect(lines).toEqual([]);
  });

  it('takes only the namespace asked for, and no pid file whose process is not a serving process', async () => {
    const a1 = await fakeServer('a1', 'k8s.io', { SKIFF_KEEPER: '1', FAKE_HANDS_OVER: '1' });
    writeFileSync(pidFile('c3'), `${process.pid}\n`);
    writeFileSync(join(skiffState, 'k-0123.pid'), `${process.pid}\n`);
    await restartServing({ ...options(), namespace: 'default' });
    expect(lines).toEqual([
      `no skiff serving process of namespace default runs under ${skiffState}: nothing to restart`,
    ]);
    // Its process gone, a pid file left behind (a SIGKILL) is no serving process either.
    process.kill(a1, 'SIGKILL');
    await waitFor('the fake serving process to be gone', () => !isRunning(a1));
    await restartServing(options());
    expect(lines.at(-1)).toBe(`no skiff serving process runs under ${skiffState}: nothing to restart`);
  });
});

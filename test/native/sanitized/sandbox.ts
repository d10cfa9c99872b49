import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parentOf, pids } from '../../support/procs';
import { waitFor } from '../../support/wait-for';
import { SanitizerRuns } from '../support/sanitizer-run';
import { SanitizedProgram } from '../support/sanitized-program';

/**
 * containerd-shim-skiff-v2's `sandbox` (native/containerd-shim/sandbox.c): its refusals, a failure
 * before and after the fork, and, as root, a holder with its namespaces and a sysctl that reaps an
 * orphan as pid 1 and exits at SIGTERM (LeakSanitizer runs then, its report in the runs' files).
 * test/native/sandbox-verb.test.ts holds the verb to its contract; this is for memory errors.
 */
const dir = mkdtempSync(join(tmpdir(), 'skiff-sanitized-sandbox-'));
const holders: number[] = [];
let n = 0;

/** `sandbox args` with stderr in a file, as the keeper runs it: a holder keeps it open. */
function sandbox(runs: SanitizerRuns, binary: string, args: string[], asan = '') {
  const log = join(dir, `log-${++n}`);
  const err = openSync(log, 'w');
  const env = runs.env();
  // ASan reads its options in order: a later one wins.
  if (asan !== '') env.ASAN_OPTIONS = `${env.ASAN_OPTIONS}:${asan}`;
  const result = spawnSync(binary, ['sandbox', ...args], { stdio: ['ignore', 'ignore', err], env, timeout: 20_000 });
  closeSync(err);
  return { status: result.status, stderr: readFileSync(log, 'utf8') };
}

/** A holder launched with a pid file; its pid, ended at clean-up if a case leaves it. */
function hold(runs: SanitizerRuns, binary: string, args: string[], asan = ''): number {
  const pidFile = join(dir, `pid-${n + 1}`);
  expect(sandbox(runs, binary, ['--pid-file', pidFile, ...args], asan)).toEqual({ status: 0, stderr: '' });
  const pid = Number(readFileSync(pidFile, 'utf8'));
  holders.push(pid);
  return pid;
}

/** Gone, or a zombie its new parent has not reaped: it has exited, its sanitizer reports written. */
const ended = (pid: number) => !existsSync(`/proc/${pid}`) || /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));

export const sandboxVerb: SanitizedProgram = {
  target: 'containerd-shim-skiff-v2',
  mode: 'sandbox',
  cases: [
    {
      name: 'refusals of its command line, a netns it cannot open, a pid file it cannot write after the fork',
      run(binary, runs) {
        const pidFile = join(dir, 'pid');
        for (const args of [
          [],
          ['--pid-file'],
          ['--pid-file', pidFile, '--sysctl', `net.${'a'.repeat(5000)}=1`],
          ['--pid-file', pidFile, '--sysctl', 'kernel.panic=1'],
          ['--pid-file', pidFile, '--hostname', 'h', '--host-uts'],
        ])
          expect(sandbox(runs, binary, args).status).toBe(2);
        if (process.getuid?.() !== 0) return;
        expect(sandbox(runs, binary, ['--pid-file', pidFile, '--netns', join(dir, 'none')])).toEqual({
          status: 1,
          stderr: `containerd-shim-skiff-v2 sandbox: open netns ${join(dir, 'none')}: No such file or directory\n`,
        });
        // The holder is forked, then killed and reaped by its parent.
        expect(sandbox(runs, binary, ['--pid-file', join(dir, 'none', 'pid')]).status).toBe(1);
      },
    },
    {
      name: 'a holder of new UTS and IPC namespaces with a sysctl and a hostname, which exits at SIGTERM',
      async run(binary, runs) {
        if (process.getuid?.() !== 0) return;
        const pid = hold(runs, binary, ['--hostname', 'pod', '--sysctl', 'kernel.shmmni=1000']);
        process.kill(pid, 'SIGTERM');
        await waitFor(`holder ${pid} to exit`, () => ended(pid));
      },
    },
    {
      name: 'a holder as pid 1 of a new PID namespace: reaps an orphan, exits at SIGTERM (without LeakSanitizer)',
      async run(binary, runs) {
        if (process.getuid?.() !== 0 || spawnSync('nsenter', ['-V']).error !== undefined) return;
        // After unshare(CLONE_NEWPID) LeakSanitizer's tracer, cloned at the parent's exit, is in the
        // new PID namespace, where the parent it would stop has no pid: it waits for ever.
        const pid = hold(runs, binary, ['--share-pid'], 'detect_leaks=0');
        spawnSync('nsenter', ['--target', String(pid), '--pid', '--', 'sh', '-c', '(sleep 0.2 &) ; exit 0'], {
          stdio: 'ignore',
        });
        const orphan = pids().find((p) => parentOf(p) === pid);
        if (orphan !== undefined) await waitFor('the orphan reaped', () => !existsSync(`/proc/${orphan}`));
        process.kill(pid, 'SIGTERM');
        await waitFor(`holder ${pid} to exit`, () => ended(pid));
      },
    },
  ],
  cleanUp() {
    for (const pid of holders) if (!ended(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  },
};

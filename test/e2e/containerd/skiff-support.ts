import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUSYBOX_IMAGE, PrivateContainerd } from '../../support/containerd';
import { argAfter, argvOf, parentOf, pids } from '../../support/procs';
import { ok } from './support';

/** The filesystem type mounted at `path` (the last mount there), or undefined. */
export function mountedAt(path: string): string | undefined {
  let found: string | undefined;
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const fields = line.split(' ');
    if (fields[4] === path) found = fields[fields.indexOf('-') + 1];
  }
  return found;
}

/** The topics containerd took from shims in namespace `ns`, in order (its debug log, "event forwarded"). */
export function forwardedTopics(env: PrivateContainerd, ns: string): string[] {
  const topics: string[] = [];
  for (const line of readFileSync(env.paths.log, 'utf8').split('\n')) {
    const match = /msg="event forwarded" ns=(\S+) topic=(\S+)/.exec(line);
    if (match !== null && match[1] === ns) topics.push(match[2]);
  }
  return topics;
}

/** skiff's serving processes of this containerd: pid and group socket. */
export function groupServers(env: PrivateContainerd): Array<{ pid: number; socket: string }> {
  return groupServersUnder(env.paths.dir);
}

/** The pids of skiff's serving processes whose group socket is under `dir`. */
export function groupServerPids(dir: string): number[] {
  return groupServersUnder(dir).map((s) => s.pid);
}

/**
 * skiff's serving processes whose group socket is under `dir`, with their command lines. A
 * child the serving process has forked and not yet exec'd (a runc it launches) shows its
 * parent's command line for that instant: it is not a second serving process.
 */
export function groupServersUnder(dir: string): Array<{ pid: number; socket: string; argv: string[] }> {
  const found = pids()
    .map((pid) => ({ pid, argv: argvOf(pid) }))
    .filter(
      ({ argv }) => argv.some((a) => a.endsWith('containerd-daemon.js')) && argAfter(argv, '--socket')?.startsWith(dir),
    )
    .map(({ pid, argv }) => ({ pid, argv, socket: argAfter(argv, '--socket') as string }));
  const servers = new Set(found.map((s) => s.pid));
  return found.filter((s) => !servers.has(parentOf(s.pid)));
}

/** ctr on a pseudo-terminal (as `ctr run -t` needs): its exit status and everything it printed. */
export function ctrOnTerminal(
  env: PrivateContainerd,
  ns: string,
  args: readonly string[],
  timeoutMs = 15_000,
): Promise<{ status: number; output: string }> {
  const pty = require('node-pty') as typeof import('node-pty');
  const [cmd, ...rest] = args;
  const fifo = cmd === 'run' ? [cmd, '--fifo-dir', env.paths.fifoDir] : [cmd, rest.shift() as string];
  const argv = [
    '--address',
    env.address,
    '--namespace',
    ns,
    ...fifo,
    ...(cmd === 'run' ? [] : ['--fifo-dir', env.paths.fifoDir]),
    ...rest,
  ];
  const term = pty.spawn('ctr', argv, { cols: 80, rows: 24, env: process.env as Record<string, string> });
  let output = '';
  term.onData((d) => (output += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      term.kill('SIGKILL');
      reject(new Error(`ctr ${args.join(' ')} timed out on its terminal: ${output}`));
    }, timeoutMs);
    term.onExit(({ exitCode }) => {
      clearTimeout(timer);
      resolve({ status: exitCode, output });
    });
  });
}

/** containerd's runtime flags for skiff. */
export const SKIFF = ['--runtime', 'io.containerd.skiff.v2'];
/** Prints its counter every 20 ms: a gap in its log is a lost byte. */
export const COUNTER = 'i=0; while true; do echo $i; i=$((i+1)); usleep 20000; done';
/** Exits 7 at SIGTERM: its real status, which only its parent (the pod keeper) can read. */
export const TRAPPED = 'trap "exit 7" TERM; while true; do usleep 20000; done';

/** `ctr run -d` of a COUNTER container through skiff, its output in the file://`log`. */
export async function runCounter(env: PrivateContainerd, ns: string, id: string, log: string): Promise<void> {
  await ok(env, ns, ['run', '-d', ...SKIFF, '--log-uri', `file://${log}`, BUSYBOX_IMAGE, id, 'sh', '-c', COUNTER]);
}

/** The task directories skiff's serving process keeps for namespace `ns` (docs/keeper-protocol.md, "The task directory"). */
export function skiffTaskDirs(env: PrivateContainerd, ns: string): string[] {
  const dir = join(env.paths.state, 'skiff', ns, 'tasks');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** The containers runc knows under skiff's root for namespace `ns`: none made twice, none half-made and lost. */
export function skiffRuncContainers(env: PrivateContainerd, ns: string): string[] {
  const root = join(env.paths.state, 'skiff', ns, 'runc');
  if (!existsSync(root)) return [];
  return execFileSync('runc', ['--root', root, 'list', '-q'], { encoding: 'utf8' })
    .split('\n')
    .filter((id) => id !== '')
    .sort();
}

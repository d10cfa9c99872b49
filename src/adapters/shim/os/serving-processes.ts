import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../shared/helpers/package-info';
import { readPidFile } from './pid-file';

/** A containerd serving process of skiff, as its pid file and /proc show it. */
export interface ServingProcess {
  readonly pid: number;
  readonly pidFile: string;
  /** Its group socket (`--socket`). */
  readonly socket: string;
  readonly namespace: string;
  /** Its environment, containerd's (to tell whether it runs behind pod keepers); undefined when it cannot be read. */
  readonly env: Readonly<Record<string, string>> | undefined;
}

const SCRIPT = 'containerd-daemon.js';

/**
 * Every pid file of a serving group under `<containerd state>/skiff` (keepers' files start with
 * `k-`); none when the directory does not exist. Other errors (EACCES: not root) are thrown.
 */
export function servingPidFiles(skiffState: string): string[] {
  let names: string[];
  try {
    names = readdirSync(skiffState);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .filter((name) => name.endsWith('.pid') && !name.startsWith('k-'))
    .sort()
    .map((name) => join(skiffState, name));
}

/**
 * Who a serving process is: root, running the installed package's own script (the path
 * containerd-shim-skiff-v2 gives node, from its own /proc/self/exe, so with no link in it).
 * Any user can start a process whose command line looks like one; only these are taken.
 */
export interface ServingIdentity {
  readonly script: string;
  readonly uid: number;
}

/** The serving processes of the package this code runs from: root, `<package>/bin/containerd-daemon.js`. */
export function installedServing(): ServingIdentity {
  const script = join(packageRoot(), 'bin', SCRIPT);
  let real = script;
  try {
    real = realpathSync(script);
  } catch {
    // not installed whole: no process runs it, so none matches
  }
  return { script: real, uid: 0 };
}

/** A process that looks like a serving process under the directory but is not one of `identity`'s, and why. */
export interface IgnoredProcess {
  readonly pid: number;
  readonly namespace: string;
  readonly why: string;
}

/** What a scan of /proc found under a skiff state directory. */
export interface RunningServing {
  readonly serving: Array<{ pid: number; namespace: string }>;
  readonly ignored: IgnoredProcess[];
}

/**
 * The serving processes whose group socket is under `skiffState`, found in /proc (whether or not
 * they wrote a pid file), with their namespace; those whose command line only looks like one
 * (another user's, another script's) are ignored, with the reason.
 */
export function servingProcessesRunning(skiffState: string, identity: ServingIdentity): RunningServing {
  const found: RunningServing = { serving: [], ignored: [] };
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const line = servingArgs(procList(pid, 'cmdline'));
    if (line === undefined || !line.socket.startsWith(`${skiffState}/`)) continue;
    const uids = procUids(pid);
    if (uids === undefined) continue; // gone since
    const why = notServing(uids, line.script, identity);
    if (why === undefined) found.serving.push({ pid, namespace: line.namespace });
    else found.ignored.push({ pid, namespace: line.namespace, why });
  }
  return found;
}

/**
 * The serving process a pid file names, when it still runs (a pid reused by another program,
 * or by another user's process, is not one).
 */
export function servingProcessOf(pidFile: string, identity: ServingIdentity): ServingProcess | undefined {
  const pid = readPidFile(pidFile);
  if (pid === undefined) return undefined;
  const line = servingArgs(procList(pid, 'cmdline'));
  if (line === undefined || `${line.socket.replace(/\.sock$/, '')}.pid` !== pidFile) return undefined;
  const uids = procUids(pid);
  if (uids === undefined || notServing(uids, line.script, identity) !== undefined) return undefined;
  return { pid, pidFile, socket: line.socket, namespace: line.namespace, env: environOf(pid) };
}

/** The script, `--socket` and `--namespace` of a command line that runs a containerd-daemon.js. */
function servingArgs(argv: string[]): { script: string; socket: string; namespace: string } | undefined {
  const script = argv.findIndex((arg) => arg.endsWith(`/${SCRIPT}`));
  if (script < 0) return undefined;
  const flag = (name: string) => {
    const at = argv.indexOf(name, script);
    return at > 0 ? argv[at + 1] : undefined;
  };
  const socket = flag('--socket');
  const namespace = flag('--namespace');
  return socket === undefined || namespace === undefined ? undefined : { script: argv[script], socket, namespace };
}

/** Why a process is not one of `identity`'s serving processes; undefined when it is. */
function notServing(uids: readonly number[], script: string, identity: ServingIdentity): string | undefined {
  const other = uids.find((uid) => uid !== identity.uid);
  if (other !== undefined) return `it runs as uid ${other}, not ${identity.uid === 0 ? 'root' : `uid ${identity.uid}`}`;
  if (script !== identity.script) return `it runs ${script}, not the installed ${identity.script}`;
  return undefined;
}

/** The real, effective, saved and filesystem uids of /proc/<pid>/status; undefined when it cannot be read. */
function procUids(pid: number): number[] | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return undefined;
  }
  const line = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$/m.exec(text);
  return line === null ? undefined : line.slice(1).map(Number);
}

/** Whether `pid` is still a live process (a zombie has left: its cmdline reads empty). */
export function isRunning(pid: number): boolean {
  return procList(pid, 'cmdline').length > 0;
}

function environOf(pid: number): Record<string, string> | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return undefined;
  }
  const env: Record<string, string> = {};
  for (const entry of text.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

function procList(pid: number, file: 'cmdline' | 'environ'): string[] {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8')
      .split('\0')
      .filter((s) => s !== '');
  } catch {
    return [];
  }
}

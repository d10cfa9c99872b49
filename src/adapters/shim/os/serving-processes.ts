import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
 * The pids of the serving processes whose group socket is under `skiffState`, found in /proc
 * (whether or not they wrote a pid file), with their namespace.
 */
export function servingProcessesRunning(skiffState: string): Array<{ pid: number; namespace: string }> {
  const found: Array<{ pid: number; namespace: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const argv = procList(Number(entry), 'cmdline');
    const script = argv.findIndex((arg) => arg.endsWith(`/${SCRIPT}`));
    const at = (name: string) => (script < 0 ? -1 : argv.indexOf(name, script));
    const socket = at('--socket') > 0 ? argv[at('--socket') + 1] : undefined;
    const namespace = at('--namespace') > 0 ? argv[at('--namespace') + 1] : undefined;
    if (socket?.startsWith(`${skiffState}/`) && namespace !== undefined) found.push({ pid: Number(entry), namespace });
  }
  return found;
}

/** The serving process a pid file names, when it still runs (a pid reused by another program is not one). */
export function servingProcessOf(pidFile: string): ServingProcess | undefined {
  const pid = readPidFile(pidFile);
  if (pid === undefined) return undefined;
  const argv = procList(pid, 'cmdline');
  const script = argv.findIndex((arg) => arg.endsWith(`/${SCRIPT}`));
  if (script < 0) return undefined;
  const flag = (name: string) => {
    const at = argv.indexOf(name, script);
    return at > 0 ? argv[at + 1] : undefined;
  };
  const socket = flag('--socket');
  const namespace = flag('--namespace');
  if (socket === undefined || namespace === undefined || `${socket.replace(/\.sock$/, '')}.pid` !== pidFile)
    return undefined;
  return { pid, pidFile, socket, namespace, env: environOf(pid) };
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

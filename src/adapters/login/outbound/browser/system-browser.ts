import { ChildProcess, spawn } from 'node:child_process';
import { Browser } from '../../../../application/login/ports/browser.port';

/** A launcher that exits non-zero within this long failed (no display, no handler). */
const EARLY_EXIT_MS = 500;

/** The commands to try for `url`: each `$BROWSER` entry (':'-separated, `%s` = the URL), then the platform's opener. */
export function browserCommands(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[][] {
  const commands: string[][] = [];
  for (const entry of (env.BROWSER ?? '').split(':')) {
    const words = entry.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    commands.push(words.some((w) => w.includes('%s')) ? words.map((w) => w.split('%s').join(url)) : [...words, url]);
  }
  if (platform === 'darwin') commands.push(['open', url]);
  else if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') commands.push(['xdg-open', url]);
  return commands;
}

/**
 * Starts `argv` and settles once it is judged: failed (spawn error, early non-zero
 * exit), done (early exit 0) or started (still running after EARLY_EXIT_MS). Until
 * then the child and the timer stay referenced, so the event loop cannot empty
 * while the caller awaits this (an unreferenced wait let `auth git` exit 0 before
 * reading its token). Once judged, a browser still running is unreferenced: it may
 * live on, but it never keeps skiff running.
 */
function launch(argv: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (ok: boolean) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      child?.unref();
      resolve(ok);
    };
    try {
      child = spawn(argv[0], argv.slice(1), { detached: true, stdio: 'ignore' });
    } catch {
      settle(false);
      return;
    }
    child.once('error', () => settle(false));
    child.once('exit', (code) => settle(code === 0));
    child.once('spawn', () => {
      timer = setTimeout(() => settle(true), EARLY_EXIT_MS);
    });
  });
}

/**
 * Opens URLs with `$BROWSER` first, then `xdg-open` (Linux) or `open` (macOS); no
 * action elsewhere. The URL is passed as one argument, never through a shell.
 */
export class SystemBrowser implements Browser {
  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {}

  async open(url: string): Promise<boolean> {
    for (const argv of browserCommands(url, this.env, this.platform)) {
      if (await launch(argv)) return true;
    }
    return false;
  }
}

import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fenced shell block of a Markdown file. */
export interface ShellBlock {
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
  /** The reason given by `<!-- not-run: reason -->` on the line before the fence ('' when absent). */
  readonly notRun?: string;
}

const FENCE = /^```(sh|bash|shell)\s*$/;
const NOT_RUN = /^<!--\s*not-run:(.*?)-->\s*$/;

/**
 * Every ```sh (or bash, shell) block, wherever it stands: a README reorganised later
 * keeps being checked. A block is left out only when the nearest non-blank line
 * before its fence is `<!-- not-run: reason -->`.
 */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i])) continue;
    const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    if (end < 0) throw new Error(`line ${i + 1}: a shell block that is never closed`);
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const marker = before >= 0 ? NOT_RUN.exec(lines[before].trim()) : null;
    const code = lines.slice(i + 1, end).join('\n');
    blocks.push(marker === null ? { line: i + 1, code } : { line: i + 1, code, notRun: marker[1].trim() });
    i = end;
  }
  return blocks;
}

export interface BlockRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** What the block left in `skiff run`'s run directory. */
  readonly runsLeft: string[];
}

/**
 * Runs a block as a user would paste it into bash, with `skiff` on the PATH (the
 * built bin/run.js) and a home, XDG directories, runtime directory and TMPDIR of
 * its own; its working directory holds links to the repository's examples/, bin/
 * and scripts/. It stops at the first command that fails, naming it. Whatever the
 * block left running in its process group is ended afterwards.
 */
export async function runBlock(root: string, block: ShellBlock, timeoutMs: number): Promise<BlockRun> {
  const sandbox = mkdtempSync(join(tmpdir(), 'skiff-readme-'));
  const dir = (name: string) => {
    const path = join(sandbox, name);
    mkdirSync(path, { recursive: true });
    return path;
  };
  const bin = dir('bin');
  writeFileSync(
    join(bin, 'skiff'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, 'bin', 'run.js'))} "$@"\n`,
  );
  chmodSync(join(bin, 'skiff'), 0o755);
  const cwd = dir('work');
  for (const name of ['examples', 'bin', 'scripts']) symlinkSync(join(root, name), join(cwd, name));
  const env: NodeJS.ProcessEnv = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: dir('home'),
    XDG_CONFIG_HOME: dir('config'),
    XDG_DATA_HOME: dir('data'),
    XDG_CACHE_HOME: dir('cache'),
    XDG_RUNTIME_DIR: dir('runtime'),
    TMPDIR: dir('tmp'),
    BROWSER: '/bin/false',
    LANG: 'C.UTF-8',
  };
  const script = [
    'set -eo pipefail',
    `trap 'echo "README command failed (exit $?): $BASH_COMMAND" >&2' ERR`,
    block.code,
  ].join('\n');
  try {
    const result = await runScript(script, cwd, env, timeoutMs);
    const runs = join(sandbox, 'runtime', 'skiff', 'runs');
    const runsLeft = existsSync(runs) ? readdirSync(runs) : [];
    // A run's shim has a session of its own: end what the block left, then report it.
    for (const id of runsLeft) {
      spawnSync(join(bin, 'skiff'), ['task', 'shutdown', '--now', '--address', join(runs, id, 'shim.sock')], { env });
    }
    return { ...result, runsLeft };
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }
}

function runScript(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Omit<BlockRun, 'runsLeft'>> {
  return new Promise((resolve) => {
    // Its own process group, so that what it started in the background can be ended with it.
    const child = spawn('bash', ['-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const group = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // Nothing left in the group.
      }
    };
    const timer = setTimeout(() => {
      stderr += `\n(timed out after ${timeoutMs} ms)`;
      group('SIGKILL');
    }, timeoutMs);
    // 'exit', not 'close': a background process of the block may hold its stdout open.
    child.once('exit', (code) => {
      clearTimeout(timer);
      group('SIGTERM');
      setTimeout(() => {
        group('SIGKILL');
        resolve({ code, stdout, stderr });
      }, 500);
    });
  });
}

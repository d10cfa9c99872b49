import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ROOT } from '../support/skiff-home';

export { ROOT };

/** The tools a build from source would look for on the PATH: none may be found where skiff is installed. */
export const BUILD_TOOLS = ['cc', 'gcc', 'c++', 'g++', 'make', 'python', 'python3'];

/** The first `name` on this process's PATH, resolved (undefined when there is none). */
export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      const file = join(dir, name);
      if (dir !== '' && statSync(file).isFile()) return realpathSync(file);
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A directory of links to `tools` (each found on this process's PATH), to be a whole PATH:
 * what a machine has when it has only those. Node is `node` when asked for.
 */
export function toolDir(dir: string, tools: readonly string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const tool of tools) {
    const found = tool === 'node' ? process.execPath : onPath(tool);
    if (found === undefined) throw new Error(`${tool} is not on this machine's PATH`);
    symlinkSync(found, join(dir, tool));
  }
  return dir;
}

/** npm's own command line, run by this Node (npm-cli.js beside the npm on PATH). */
export function npmCli(): string {
  const npm = onPath('npm');
  if (npm === undefined) throw new Error('npm is not on the PATH');
  return npm;
}

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs `file args` to the end without blocking the event loop (the OIDC provider serves on it meanwhile). */
export function run(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<Ran> {
  const started = Date.now();
  const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })),
  );
}

/**
 * Runs npm (`args`) in this process's environment (the machine's proxy and CA settings reach
 * the registry) less the npm_* variables of an enclosing `npm test`, with `env` over it.
 */
export function npm(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  const argv = [npmCli(), ...args, '--no-audit', '--no-fund', '--no-update-notifier'];
  return run(process.execPath, argv, { cwd, env: { ...base, ...env } });
}

/** One line for a failed run: what ran and the end of what it said. */
export function failure(what: string, ran: Ran): string {
  return `${what} exited ${ran.code}: ${(ran.stderr || ran.stdout).trim().split('\n').slice(-15).join('\n')}`;
}

/**
 * What `npm pack` adds to the package at prepack (scripts/prebuild.js): the native parts of each
 * platform it carries (docs/install.md, "The package"). A checkout has no prebuilds/, so a file list
 * without scripts lacks them; install.test.ts holds the real tarball to these.
 */
export const PREBUILT: readonly string[] = ['x64', 'arm64'].flatMap((arch) =>
  ['skiff.glibc.node', 'skiff-gate', 'containerd-shim-skiff-v2'].map((part) => `prebuilds/linux-${arch}/${part}`),
);

/** The files in a .tgz, as tar lists them. */
export function tarball(file: string): string[] {
  return execFileSync('tar', ['tzf', file], { encoding: 'utf8' }).trim().split('\n');
}

/** What packing needs besides a native build: the arm64 cross-compiler with its C library, and qemu to run its output. */
const PACKAGES = 'gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static';

/**
 * Whether the package suite runs here. Where the arm64 tools are missing it is left out with
 * one line saying what to install; SKIFF_PACKAGE_TESTS=1 (CI sets it) makes that an error,
 * =0 leaves it out.
 */
export function packageTestsRunHere(): boolean {
  const flag = process.env.SKIFF_PACKAGE_TESTS;
  if (flag === '0') return false;
  const missing = ['aarch64-linux-gnu-gcc', 'qemu-aarch64-static'].filter(
    (tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0,
  );
  if (!existsSync('/usr/aarch64-linux-gnu/include/stdio.h')) missing.push("arm64's C library headers");
  if (missing.length === 0) return true;
  const why = `${missing.join(', ')} missing (apt-get install ${PACKAGES})`;
  if (flag === '1') throw new Error(`the package suite cannot run: ${why}`);
  process.stderr.write(`package suite not run here: ${why}; SKIFF_PACKAGE_TESTS=1 makes this an error\n`);
  return false;
}

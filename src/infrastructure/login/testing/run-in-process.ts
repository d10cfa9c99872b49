import { Config } from '@oclif/core';
import { platform } from 'node:os';
import { dirname, join } from 'node:path';
import { format } from 'node:util';

type OclifOs = { getPlatform: () => Promise<string> };

/** An oclif command class: skiff's own, or one a plugin adds. */
export interface RunnableCommand {
  run(argv: string[], config: Config): Promise<unknown>;
}

/** What a command did: its exit code (0, or the contract's code for the error it reported) and its output. */
export interface CommandRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** skiff's package root, from src/ (tests) and dist/ alike. */
const ROOT = join(__dirname, '..', '..', '..', '..');

let config: Promise<Config> | undefined;

/**
 * skiff's oclif configuration, without the user's plugins: a test never depends on
 * what the machine has linked.
 */
function skiffConfig(): Promise<Config> {
  const options = { root: ROOT, userPlugins: false, devPlugins: false };
  config ??= Config.load(options).catch((err: unknown) => {
    if ((err as { code?: string }).code !== 'ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG') throw err;
    // jest's module sandbox cannot import() without --experimental-vm-modules, and
    // oclif imports an ES module only to ask whether it runs under WSL: the plain
    // platform answers that for a command under test.
    const os = require(join(dirname(require.resolve('@oclif/core')), 'util', 'os.js')) as OclifOs;
    os.getPlatform = async () => platform();
    return Config.load(options);
  });
  return config;
}

/**
 * Collects what the command prints: oclif prints through console.log and
 * console.error (which jest replaces with its own), anything else may write to the
 * streams. Returns the function that puts everything back.
 */
function capture(stdout: string[], stderr: string[]): () => void {
  const saved = { log: console.log, error: console.error, out: process.stdout.write, err: process.stderr.write };
  const into = (lines: string[]) => (chunk: string | Uint8Array) => {
    lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  };
  console.log = (...args: unknown[]) => void stdout.push(`${format(...args)}\n`);
  console.error = (...args: unknown[]) => void stderr.push(`${format(...args)}\n`);
  process.stdout.write = into(stdout) as typeof process.stdout.write;
  process.stderr.write = into(stderr) as typeof process.stderr.write;
  return () => {
    Object.assign(console, { log: saved.log, error: saved.error });
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
  };
}

/**
 * Runs `command` in this process as `skiff <id> ...argv` would, its stdout and
 * stderr captured. An error the command reported (one line and an exit code, as
 * every skiff command does) is its exit code here; any other error is a bug and
 * is thrown.
 */
export async function runInProcess(command: RunnableCommand, argv: readonly string[]): Promise<CommandRun> {
  const loaded = await skiffConfig();
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exitCodeBefore = process.exitCode;
  const restore = capture(stdout, stderr);
  let exitCode = 0;
  try {
    await command.run([...argv], loaded);
  } catch (err) {
    const exit = (err as { oclif?: { exit?: unknown } }).oclif?.exit;
    if (typeof exit !== 'number') throw err;
    exitCode = exit;
  } finally {
    restore();
    process.exitCode = exitCodeBefore;
  }
  return { exitCode, stdout: stdout.join(''), stderr: stderr.join('') };
}

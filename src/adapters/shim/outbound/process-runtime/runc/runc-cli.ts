import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FailedPreconditionError } from '../../../../../domain/shared/errors';
import { DEFAULT_PATH, findInPath } from '../../../os/find-executable';
import { runProgram } from '../../../os/run-program';
import { ChildStdio } from '../stdio/direct-stdio';

/** One runc invocation: the subcommand and its arguments after the global flags. */
export interface RuncCall {
  readonly args: readonly string[];
  /** The bundle: runc logs to <bundle>/log.json (JSON lines), where failures are read back. */
  readonly bundle: string;
  /** runc's own stdio, which it hands to the container's process (create, exec, restore). */
  readonly stdio?: readonly [ChildStdio, ChildStdio, ChildStdio];
  /** Written to runc's stdin (`update --resources -`). */
  readonly input?: string;
  /** Variables set in runc's environment besides its own (checkpoint, restore: criu's PATH and CRIU_CONFIG_FILE). */
  readonly env?: Readonly<Record<string, string>>;
}

/** runc exited non-zero; `message` is runc's own last logged error, trimmed to one line. */
export class RuncFailure extends Error {
  constructor(
    readonly subcommand: string,
    message: string,
  ) {
    super(message);
  }
}

/** A runc-compatible runtime: its name (--runtime, Stats' runtime) and its binary, found on PATH. */
export interface OciRuntimeBinary {
  readonly name: string;
  readonly binary: string;
}

export const RUNC: OciRuntimeBinary = { name: 'runc', binary: 'runc' };

/** The runtime's binary is missing; the binary's name is also its Debian package's (runc, crun). */
export function runcMissingError(detail: string, runtime: OciRuntimeBinary = RUNC): FailedPreconditionError {
  return new FailedPreconditionError(
    `the ${runtime.name} runtime needs the ${runtime.binary} binary, which ${detail}: install it (Debian/Ubuntu: apt-get install ${runtime.binary}) or use --runtime native`,
    'RUNC.MISSING',
  );
}

/** Finds the runtime's binary on the shim's PATH; FailedPrecondition naming the package when it is not there. */
export function findRuntimeBinary(runtime: OciRuntimeBinary, env: NodeJS.ProcessEnv = process.env): string {
  const searchPath = env.PATH ?? DEFAULT_PATH;
  const path = findInPath(runtime.binary, searchPath);
  if (path === undefined) throw runcMissingError(`is not in PATH (${searchPath})`, runtime);
  return path;
}

let ownRuncEnvironment: string[] | undefined;

/**
 * The environment runc runs with, as containerd's runc shim gives it: its own with GOMAXPROCS=4
 * (the shim's process is started with it, containerd's runtime/v2/runc/v2/service.go newCommand,
 * and runc inherits it) and without NOTIFY_SOCKET (go-runc's command() filters it: runc would
 * relay the container's sd_notify, and `runc start` wait for its READY=1). containerd started by
 * systemd (Type=notify) has NOTIFY_SOCKET, and every shim inherits it. A pod keeper gives runc
 * the same (native/keeper/keeper.c).
 */
export function runcEnvironment(env?: NodeJS.ProcessEnv): string[] {
  // This process's, made once: reading process.env whole took 0.2 ms a runc call.
  if (env === undefined) return (ownRuncEnvironment ??= runcEnvironment(process.env));
  const out: string[] = [];
  for (const [name, value] of Object.entries(env))
    if (name !== 'NOTIFY_SOCKET' && name !== 'GOMAXPROCS' && value !== undefined) out.push(`${name}=${value}`);
  out.push('GOMAXPROCS=4');
  return out;
}

function withVariables(env: readonly string[], extra: Readonly<Record<string, string>>): string[] {
  const names = new Set(Object.keys(extra));
  return [
    ...env.filter((entry) => !names.has(entry.slice(0, entry.indexOf('=')))),
    ...Object.entries(extra).map(([name, value]) => `${name}=${value}`),
  ];
}

/**
 * Runs runc with an argv array (never a shell): `runc --root <dir> --log <bundle>/log.json
 * --log-format json <args>`, started like every helper program (helpers/run-program).
 */
export class RuncCli {
  constructor(
    readonly binary: string,
    readonly root: string,
    /** runc's --systemd-cgroup: cgroupsPath is a systemd slice:prefix:name. */
    readonly systemdCgroup = false,
  ) {}

  /** The whole command line of one call, and its log: a pod keeper runs it (docs/keeper-protocol.md, `L`). */
  commandLine(call: RuncCall): { argv: string[]; log: string } {
    const log = join(call.bundle, 'log.json');
    const systemd = this.systemdCgroup ? ['--systemd-cgroup'] : [];
    return {
      argv: [this.binary, '--root', this.root, ...systemd, '--log', log, '--log-format', 'json', ...call.args],
      log,
    };
  }

  /** Runs one call; resolves with its stdout, or rejects with a RuncFailure carrying runc's message. */
  async run(call: RuncCall): Promise<string> {
    const { argv, log } = this.commandLine(call);
    const offset = logOffset(log);
    let result;
    try {
      result = await runProgram(this.binary, argv.slice(1), {
        stdio: call.stdio,
        input: call.input,
        env: call.env === undefined ? runcEnvironment() : withVariables(runcEnvironment(), call.env),
      });
    } catch (err) {
      throw (err as NodeJS.ErrnoException).code === 'ENOENT'
        ? runcMissingError(`was not found at ${this.binary}`)
        : err;
    }
    if (result.code === 0) return result.stdout;
    const stderr = result.stderr.trim();
    const message =
      lastLogError(log, offset) ??
      (stderr !== ''
        ? trimMessage(stderr)
        : `runc exited with ${result.signal !== null ? `signal ${result.signal}` : `code ${result.code}`}`);
    throw new RuncFailure(call.args[0], message);
  }
}

// runc's JSON log (--log <bundle>/log.json), where a failing call's reason is read back.

/** Longest runc message put in an error (runc wraps errors in long chains). */
const MAX_MESSAGE = 600;
/** How much of the log's tail is read: the newest lines are the ones that matter. */
const TAIL_BYTES = 64 * 1024;

/** Where the log ends now, so that a failing call reads only the lines it wrote. */
export function logOffset(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * The message of the last error runc wrote to its JSON log (`--log-format json`) after
 * `offset`, trimmed to one line; undefined when it wrote none.
 */
export function lastLogError(path: string, offset: number): string | undefined {
  let text = '';
  try {
    const size = statSync(path).size;
    const start = Math.max(offset, size - TAIL_BYTES);
    const buffer = Buffer.alloc(Math.max(0, size - start));
    const fd = openSync(path, 'r');
    try {
      readSync(fd, buffer, 0, buffer.length, start);
    } finally {
      closeSync(fd);
    }
    text = buffer.toString('utf8');
  } catch {
    return undefined;
  }
  let message: string | undefined;
  for (const line of text.split('\n')) {
    try {
      const entry = JSON.parse(line) as { level?: string; msg?: string };
      if ((entry.level === 'error' || entry.level === 'fatal') && typeof entry.msg === 'string') message = entry.msg;
    } catch {
      // a partial first line or a non-JSON line
    }
  }
  return message === undefined ? undefined : trimMessage(message);
}

/** One line, no trailing blanks, bounded length. */
export function trimMessage(text: string): string {
  const line = text.replace(/\s*\n\s*/g, '; ').trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}...` : line;
}

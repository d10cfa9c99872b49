'use strict';
// Runs `ctr --address <socket> -n <namespace> ...` with a time limit and returns what it
// printed and how it ended (never throws for a non-zero exit: the caller judges).
const { spawn } = require('node:child_process');

const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * ctr makes its stdio FIFOs under /run/containerd/fifo unless told otherwise; these
 * subcommands take --fifo-dir, which keeps them in the instance's own directory.
 */
function withFifoDir(args, fifoDir) {
  if (fifoDir === undefined) return args;
  const [cmd, sub] = args;
  if (cmd === 'run') return [cmd, '--fifo-dir', fifoDir, ...args.slice(1)];
  if (['t', 'task', 'tasks'].includes(cmd) && ['start', 'exec'].includes(sub))
    return [cmd, sub, '--fifo-dir', fifoDir, ...args.slice(2)];
  return args;
}

/**
 * Options: timeoutMs (default 15 s; then ctr is killed and `timedOut` is true), input
 * (written to ctr's stdin, which is /dev/null otherwise), fifoDir, env, ctrBinary (default ctr on PATH).
 * Resolves { stdout, stderr, status (exit code or null), signal, timedOut, ms }.
 */
function ctr(address, namespace, args, options = {}) {
  const argv = ['--address', address, '--namespace', namespace, ...withFifoDir(args, options.fifoDir)];
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(options.ctrBinary ?? 'ctr', argv, {
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      env: options.env ?? process.env,
    });
    const out = [];
    const err = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`ctr could not be started (${error.message}): apt-get install containerd`));
    });
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      resolve({
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        status,
        signal,
        timedOut,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    if (options.input !== undefined) child.stdin.end(options.input);
  });
}

/** One line for an error message: the command and how it ended. */
function describe(args, result) {
  const how = result.timedOut
    ? 'timed out'
    : result.status === null
      ? `died of ${result.signal}`
      : `exited ${result.status}`;
  const said = result.stderr.trim().split('\n').pop() ?? '';
  return `ctr ${args.join(' ')} ${how}${said === '' ? '' : `: ${said}`}`;
}

module.exports = { ctr, describe, withFifoDir, DEFAULT_TIMEOUT_MS };

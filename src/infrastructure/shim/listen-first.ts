import { isDomainError } from '../../domain/shared/errors';
import { exitCodeFor, EXIT } from '../../adapters/shared/inbound/cli/exit-codes';
import { dirname } from 'node:path';
import { ensurePrivateDir } from '../../adapters/shared/helpers/private-dir';
import { bindSocket, BoundSocket, socketPath } from '../../adapters/shim/os/unix-socket';
import { ADDRESS_VARIABLE, defaultAddress, defaultStateDir, runtimeDir, ShimConfig } from './shim-config';
import { DEFAULT_RUNTIME, isRuntimeName } from './runtimes';

/**
 * The first step of `skiff shim serve` (bundled alone as dist/shim-listen.bundle.js):
 * read the flags and bind the socket, before the serving code (dist/shim.bundle.js,
 * ~25 ms to load) is even read. The kernel accepts connections from then on and they
 * wait in the socket until the transport takes them, so a caller that waits for the
 * socket (containerd, `skiff run`) dials while the rest loads (docs/performance.md).
 */

/**
 * The flags of `skiff shim serve`, and exactly those: --address, --runtime, --state-dir,
 * and the hidden --run-dir and --lifeline that `skiff run` gives its shims; anything else
 * returns undefined and the command goes through oclif, which owns help and usage errors.
 */
export function parseServeArgs(argv: readonly string[]): ShimConfig | undefined {
  const values: Record<string, string> = {};
  let lifeline = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--lifeline') {
      lifeline = true;
      continue;
    }
    const match = /^--(address|runtime|state-dir|run-dir)(?:=(.*))?$/.exec(argv[i]);
    if (match === null) return undefined;
    const value = match[2] ?? argv[++i];
    if (value === undefined) return undefined;
    values[match[1]] = value;
  }
  const runtime = values.runtime ?? DEFAULT_RUNTIME;
  if (!isRuntimeName(runtime)) return undefined;
  const address = values.address ?? (process.env[ADDRESS_VARIABLE] || defaultAddress());
  return { address, runtime, stateDir: values['state-dir'] ?? defaultStateDir(), runDir: values['run-dir'], lifeline };
}

/** Binds the socket with the native addon: node:net, ~4 ms to load, is not needed yet. */
export async function listenFirst(config: ShimConfig): Promise<BoundSocket> {
  // skiff's own directory (the default socket's and state's) must be nobody else's
  // (private-dir.ts): checked before a socket is made in it.
  const shared = runtimeDir();
  const inShared = (path: string) => path === shared || path.startsWith(`${shared}/`);
  if (inShared(dirname(socketPath(config.address))) || inShared(config.stateDir)) ensurePrivateDir(shared);
  return bindSocket(config.address);
}

/** One line on stderr and the contract's exit code; the socket, if bound, is removed first. */
export function failServe(err: unknown, socket?: { close(): void }): never {
  socket?.close();
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`skiff shim serve: ${message}\n`);
  process.exit(isDomainError(err) ? exitCodeFor(err.kind) : EXIT.unexpected);
}

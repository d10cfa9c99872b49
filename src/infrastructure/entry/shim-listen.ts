import { isDomainError } from '../../domain/shared/errors';
import { exitCodeFor, EXIT } from '../../adapters/shared/inbound/cli/exit-codes';
import { dirname } from 'node:path';
import { ensurePrivateDir } from '../../adapters/shared/helpers/private-dir';
import { parseFastArgv } from '../../adapters/shared/inbound/cli/fast-argv';
import { bindSocket, BoundSocket, socketPath } from '../../adapters/shim/os/unix-socket';
import { ADDRESS_VARIABLE, defaultAddress, defaultStateDir, runtimeDir, ShimConfig } from '../shim/shim-config';
import { SERVE_FLAGS } from '../shim/serve-flags';
import { isRuntimeName } from '../shim/runtimes';

/**
 * The first step of `skiff shim serve` (bundled alone as dist/shim-listen.bundle.js):
 * read the flags and bind the socket, before the serving code (dist/shim.bundle.js,
 * ~25 ms to load) is even read. The kernel accepts connections from then on and they
 * wait in the socket until the transport takes them, so a caller that waits for the
 * socket (containerd, `skiff run`) dials while the rest loads (docs/performance.md).
 */

/**
 * The flags of `skiff shim serve` (its own table, serve-flags.ts) in their plain forms
 * (fast-argv.ts), with the defaults the command applies; anything else returns
 * undefined and the command goes through oclif, which owns help and usage errors.
 */
export function parseServeArgs(argv: readonly string[]): ShimConfig | undefined {
  const flags = parseFastArgv(SERVE_FLAGS, argv);
  if (flags === undefined) return undefined;
  const runtime = flags.runtime ?? SERVE_FLAGS.runtime.default;
  if (!isRuntimeName(runtime)) return undefined;
  const address = flags.address ?? (process.env[ADDRESS_VARIABLE] || defaultAddress());
  const stateDir = flags['state-dir'] ?? defaultStateDir();
  return { address, runtime, stateDir, runDir: flags['run-dir'], lifeline: flags.lifeline === true };
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

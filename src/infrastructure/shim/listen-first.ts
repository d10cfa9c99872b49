import { isDomainError } from '../../domain/shared/errors';
import { exitCodeFor, EXIT } from '../../adapters/shared/inbound/cli/exit-codes';
import { bindSocket, BoundSocket } from '../../adapters/shim/inbound/task-rpc/unix-socket';
import { defaultStateDir, isRuntimeName, ShimConfig } from './shim-config';

/**
 * The first step of `skiff shim serve` (bundled alone as dist/shim-listen.bundle.js):
 * read the flags and bind the socket, before the serving code (dist/shim.bundle.js,
 * ~25 ms to load) is even read. The kernel accepts connections from then on and they
 * wait in the socket until the transport takes them, so a caller that waits for the
 * socket (containerd, `skiff run`) dials while the rest loads (docs/performance.md).
 */

/**
 * The contract's flags, and exactly those; anything else returns undefined and the
 * command goes through oclif, which owns help and usage errors.
 */
export function parseServeArgs(argv: readonly string[]): ShimConfig | undefined {
  const values: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const match = /^--(address|runtime|state-dir)(?:=(.*))?$/.exec(argv[i]);
    if (match === null) return undefined;
    const value = match[2] ?? argv[++i];
    if (value === undefined) return undefined;
    values[match[1]] = value;
  }
  const runtime = values.runtime ?? 'native';
  if (values.address === undefined || !isRuntimeName(runtime)) return undefined;
  return { address: values.address, runtime, stateDir: values['state-dir'] ?? defaultStateDir() };
}

/** Binds the socket with the native addon: node:net, ~4 ms to load, is not needed yet. */
export function listenFirst(config: ShimConfig): Promise<BoundSocket> {
  return bindSocket(config.address);
}

/** One line on stderr and the contract's exit code; the socket, if bound, is removed first. */
export function failServe(err: unknown, socket?: { close(): void }): never {
  socket?.close();
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`skiff shim serve: ${message}\n`);
  process.exit(isDomainError(err) ? exitCodeFor(err.kind) : EXIT.unexpected);
}

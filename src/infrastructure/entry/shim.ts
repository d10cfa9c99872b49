import { SocketListener } from '../../adapters/shim/os/socket-listener';
import { BoundSocket } from '../../adapters/shim/os/unix-socket';
import { failServe } from './shim-listen';
import { ShimConfig } from '../shim/shim-config';
import { serveShim, ShimTransport } from '../shim/serve-shim';

export { parseServeArgs } from './shim-listen';
/** For the build's warm-up (scripts/warm-up/shim.js), which serves one task with them before the code cache is written. */
export { serveShim, SocketListener };

/**
 * The serving part of `skiff shim serve` (bundled as dist/shim.bundle.js and called by
 * bin/run.js, without oclif, once shim-listen.ts has bound the socket). Serves, or
 * prints one line and exits with the contract's code when the shim cannot start.
 */
export function runServe(config: ShimConfig, bound: BoundSocket, transport: ShimTransport = 'grpc'): void {
  let listener: SocketListener | undefined;
  SocketListener.adopt(bound)
    .then((adopted) => {
      listener = adopted;
      return serveShim(config, transport, adopted);
    })
    .catch((err: unknown) => failServe(err, listener ?? bound));
}

import { connect } from 'node:net';

/**
 * Whether something accepts connections on the unix socket at `path`: how a stale socket
 * file (a crashed shim's) is told from a live one, and how a started shim is known ready.
 */
export function socketAccepts(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

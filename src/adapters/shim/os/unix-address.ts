/** Unix socket paths are limited to 107 bytes plus NUL (sun_path). */
export const MAX_SOCKET_PATH = 107;

/**
 * The socket path of an address given as `/path`, `unix:/path` or `unix:///path` (gRPC's
 * unix target forms, which containerd and `--address` use alike). Not checked: the
 * server checks its own address (unix-socket.ts socketPath).
 */
export function unixPath(address: string): string {
  return address.replace(/^unix:(\/\/)?/, '');
}

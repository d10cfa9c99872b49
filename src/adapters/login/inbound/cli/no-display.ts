/**
 * True where no local browser can show a page: Linux and the BSDs without an X11 or
 * Wayland display (a server, a container, an ssh session without forwarding). macOS and
 * Windows always have one.
 */
export function hasNoDisplay(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (platform === 'darwin' || platform === 'win32') return false;
  return !env.DISPLAY && !env.WAYLAND_DISPLAY;
}

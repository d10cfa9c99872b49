import { isAbsolute, join } from 'node:path';
import { ConfigurationError } from '../../domain/shared/errors';

/** Where the login flow keeps its files (docs/login-contract.md, "Files" and "Contexts"). */
export interface AuthPaths {
  /** <data_dir>/skiff/auth: token caches, refresh locks, board credentials. */
  readonly authDir: string;
  /** $XDG_CONFIG_HOME/skiff/config.yaml, else $HOME/.config/skiff/config.yaml. */
  readonly configFile: string;
}

const usable = (dir: string | undefined): dir is string => dir !== undefined && dir !== '' && isAbsolute(dir);

/**
 * A home directory to put the login flow's files under: $HOME when it is an absolute path.
 * Without one there is no safe place: a relative path would read and write the token
 * cache wherever the command happens to run, so that is a configuration error (exit 3).
 */
function home(env: NodeJS.ProcessEnv, xdg?: string): string {
  if (usable(env.HOME)) return env.HOME;
  const why =
    env.HOME === undefined || env.HOME === '' ? 'HOME is not set' : `HOME is not an absolute path (${env.HOME})`;
  throw new ConfigurationError(
    xdg === undefined
      ? `cannot tell where skiff keeps its files: ${why}: set HOME to an absolute directory`
      : `cannot tell where skiff keeps its files: ${why} and ${xdg} is not an absolute path: ` +
          `set HOME (or ${xdg}) to an absolute directory`,
    'AUTH.NO_HOME',
  );
}

/**
 * <data_dir>: $XDG_DATA_HOME, else <home>/.local/share (the platform's user data
 * directory on macOS: ~/Library/Application Support). Relative values are ignored, as the
 * XDG Base Directory spec says; with no absolute HOME either, a configuration error.
 */
export function dataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return join(home(env), 'Library', 'Application Support');
  if (usable(env.XDG_DATA_HOME)) return env.XDG_DATA_HOME;
  return join(home(env, 'XDG_DATA_HOME'), '.local', 'share');
}

export function configDir(env: NodeJS.ProcessEnv): string {
  if (usable(env.XDG_CONFIG_HOME)) return env.XDG_CONFIG_HOME;
  return join(home(env, 'XDG_CONFIG_HOME'), '.config');
}

export function authPaths(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): AuthPaths {
  return {
    authDir: join(dataDir(env, platform), 'skiff', 'auth'),
    configFile: join(configDir(env), 'skiff', 'config.yaml'),
  };
}

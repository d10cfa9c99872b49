import { isAbsolute, join } from 'node:path';

/** Where the login flow keeps its files (docs/login-contract.md, "Files" and "Contexts"). */
export interface AuthPaths {
  /** <data_dir>/skiff/auth: token caches, refresh locks, board credentials. */
  readonly authDir: string;
  /** $XDG_CONFIG_HOME/skiff/config.yaml, else $HOME/.config/skiff/config.yaml. */
  readonly configFile: string;
}

const usable = (dir: string | undefined): dir is string => dir !== undefined && dir !== '' && isAbsolute(dir);

/**
 * <data_dir>: $XDG_DATA_HOME, else <home>/.local/share (the platform's user data
 * directory on macOS: ~/Library/Application Support), else ./.local/share.
 */
export function dataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (platform !== 'darwin' && usable(env.XDG_DATA_HOME)) return env.XDG_DATA_HOME;
  if (usable(env.HOME))
    return platform === 'darwin' ? join(env.HOME, 'Library', 'Application Support') : join(env.HOME, '.local', 'share');
  return join('.', '.local', 'share');
}

export function configDir(env: NodeJS.ProcessEnv): string {
  if (usable(env.XDG_CONFIG_HOME)) return env.XDG_CONFIG_HOME;
  return usable(env.HOME) ? join(env.HOME, '.config') : join('.', '.config');
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

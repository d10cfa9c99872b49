import { YamlConfigStore } from '../../adapters/login/outbound/config-store/yaml-config-store';
import { OsKeyringSecretStore } from '../../adapters/login/outbound/secret-store/os-keyring-secret-store';
import { FsTokenCache } from '../../adapters/login/outbound/token-cache/fs-token-cache';
import { AuthPaths } from './auth-paths';

/**
 * The contexts file and the token cache, built once for the container (login.module.ts)
 * and for the read path of `auth token`, which has none (entry/auth-read.ts).
 */
export function tokenFiles(paths: AuthPaths) {
  // The keyring adapter loads its native module on first use: only a `keyring` store pays for it.
  const keyring = new OsKeyringSecretStore();
  return {
    keyring,
    tokenCache: new FsTokenCache(paths.authDir, keyring),
    configStore: new YamlConfigStore(paths.configFile),
  };
}

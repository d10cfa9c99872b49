import type { Clock } from '../../application/shared/ports/clock.port';
import type { ConfigStore } from '../../application/login/ports/config-store.port';
import type { SecretStore } from '../../application/login/ports/secret-store.port';
import type { TokenCache } from '../../application/login/ports/token-cache.port';
import { SystemClock } from '../../adapters/shared/outbound/clock/system-clock';
import { YamlConfigStore } from '../../adapters/login/outbound/config-store/yaml-config-store';
import { OsKeyringSecretStore } from '../../adapters/login/outbound/secret-store/os-keyring-secret-store';
import { FsTokenCache } from '../../adapters/login/outbound/token-cache/fs-token-cache';
import { AuthPaths } from './auth-paths';

/** The ports the read paths use: the contexts file, the token cache (with the keyring behind it) and the clock. */
export interface LoginFilePorts {
  readonly config: ConfigStore;
  readonly cache: TokenCache;
  readonly secrets: SecretStore;
  readonly clock: Clock;
}

/**
 * These ports' adapters, each made on its first use. The login module binds its ports from
 * here (login.module.ts), and the read paths of `auth token`, `auth kube-credential` and
 * `auth git-credential` (entry/auth-read.ts, entry/git-credential-read.ts) take theirs from
 * here too, without the container: inversify alone costs those calls more than their
 * figures allow (docs/performance.md, "The login flow"). So one place decides which adapter
 * serves each port, whichever way a process enters.
 */
export function loginFilePorts(paths: AuthPaths): LoginFilePorts {
  let config: ConfigStore | undefined;
  let cache: TokenCache | undefined;
  let secrets: SecretStore | undefined;
  let clock: Clock | undefined;
  return {
    get config() {
      return (config ??= new YamlConfigStore(paths.configFile));
    },
    get cache() {
      return (cache ??= new FsTokenCache(paths.authDir, this.secrets));
    },
    // The keyring adapter loads its native module on first use: only a `keyring` store pays for it.
    get secrets() {
      return (secrets ??= new OsKeyringSecretStore());
    },
    get clock() {
      return (clock ??= new SystemClock());
    },
  };
}

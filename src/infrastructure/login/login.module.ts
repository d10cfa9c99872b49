import { ContainerModule } from 'inversify';
import { BOARD_CREDENTIALS } from '../../application/login/ports/board-credentials.port';
import { BOARD_TOOL } from '../../application/login/ports/board-tool.port';
import { BROWSER } from '../../application/login/ports/browser.port';
import { CALLBACK_LISTENER } from '../../application/login/ports/callback-listener.port';
import { CLOCK } from '../../application/shared/ports/clock.port';
import { CLUSTER_DISCOVERY } from '../../application/login/ports/cluster-discovery.port';
import { CONFIG_STORE } from '../../application/login/ports/config-store.port';
import { GIT_HOST } from '../../application/login/ports/git-host.port';
import { HASHER } from '../../application/login/ports/hasher.port';
import { IDENTITY_PROVIDER, type IdentityProvider } from '../../application/login/ports/identity-provider.port';
import { NOTIFIER } from '../../application/login/ports/notifier.port';
import { PROMPT } from '../../application/login/ports/prompt.port';
import { RANDOM } from '../../application/login/ports/random.port';
import { REFRESH_LOCK } from '../../application/login/ports/refresh-lock.port';
import { CLIENT_SECRETS } from '../../application/login/ports/client-secrets.port';
import { SUBJECT_TOKENS } from '../../application/login/ports/subject-tokens.port';
import { TOKEN_CACHE } from '../../application/login/ports/token-cache.port';
import { SECRET_STORE } from '../../application/login/ports/secret-store.port';
import { DPOP_KEYS } from '../../application/login/ports/dpop-keys.port';
import type * as Dpop from '../../adapters/login/outbound/dpop-keys/stored-dpop-keys';
import { KUBE_CONFIG } from '../../application/login/ports/kube-config.port';
import { GIT_CONFIG } from '../../application/login/ports/git-config.port';
import { DEVICE_AUTHORIZATION } from '../../application/login/ports/device-authorization.port';
import { CACHED_DOMAINS } from '../../application/login/ports/cached-domains.port';
import { ID_TOKEN_VERIFIER, type IdTokenVerifier } from '../../application/login/ports/id-token-verifier.port';
import { FsClientSecrets } from '../../adapters/login/outbound/client-secrets/fs-client-secrets';
import { FsSubjectTokens } from '../../adapters/login/outbound/subject-tokens/fs-subject-tokens';
import { FsCachedDomains } from '../../adapters/login/outbound/cached-domains/fs-cached-domains';
import { FsBoardCredentials } from '../../adapters/login/outbound/board-credentials/fs-board-credentials';
import { FsRefreshLock } from '../../adapters/login/outbound/refresh-lock/fs-refresh-lock';
import { NoClusterDiscovery } from '../../adapters/login/outbound/cluster-discovery/no-cluster-discovery';
import { StderrNotifier } from '../../adapters/login/outbound/notifier/stderr-notifier';
import type * as Browser from '../../adapters/login/outbound/browser/system-browser';
import type * as Callback from '../../adapters/login/outbound/callback-listener/loopback-callback-listener';
import type * as Gitea from '../../adapters/login/outbound/git-host/gitea-git-host';
import type * as Hasher from '../../adapters/login/outbound/hasher/node-hasher';
import type * as Http from '../../adapters/login/helpers/http-client';
import type * as Oidc from '../../adapters/login/outbound/identity-provider/oidc-identity-provider';
import type * as Planka from '../../adapters/login/outbound/board-tool/planka-board-tool';
import type * as Prompt from '../../adapters/login/outbound/prompt/stdin-prompt';
import type * as Random from '../../adapters/login/outbound/random/node-random';
import type * as IdTokens from '../../adapters/login/outbound/id-token-verifier/jose-id-token-verifier';
import type * as Device from '../../adapters/login/outbound/identity-provider/oidc-device-authorization';
import type * as GitConfig from '../../adapters/login/outbound/git-config/git-cli-config';
import type * as KubeConfig from '../../adapters/login/outbound/kube-config/yaml-kube-config';
import { AuthPaths } from './auth-paths';
import { kubeConfigFiles } from './kube-paths';
import { loginFilePorts } from './login-ports';

export type LoginModuleConfig = AuthPaths;

/**
 * The login flow, contexts and boards: the adapters behind their ports. Use cases
 * are classes the container builds on first request (autobind), so a process loads
 * only the ones its command imports.
 */
export function loginModule(paths: LoginModuleConfig): ContainerModule {
  return new ContainerModule(({ bind, isBound }) => {
    // The ports the read paths use too, from the one table of them (login-ports.ts).
    const files = loginFilePorts(paths);
    bind(SECRET_STORE).toDynamicValue(() => files.secrets);
    bind(TOKEN_CACHE).toDynamicValue(() => files.cache);
    bind(CONFIG_STORE).toDynamicValue(() => files.config);
    bind(CACHED_DOMAINS).toConstantValue(new FsCachedDomains(paths.authDir));
    bind(REFRESH_LOCK).toConstantValue(new FsRefreshLock(paths.authDir));
    bind(BOARD_CREDENTIALS).toConstantValue(new FsBoardCredentials(paths.authDir));
    bind(CLIENT_SECRETS).toConstantValue(new FsClientSecrets(process.env));
    bind(SUBJECT_TOKENS).toConstantValue(new FsSubjectTokens());
    // Beside the cache; the keyring (its private half, for a `keyring` context) reached only when asked.
    bind(DPOP_KEYS).toDynamicValue(
      () =>
        new (require('../../adapters/login/outbound/dpop-keys/stored-dpop-keys') as typeof Dpop).StoredDpopKeys(
          paths.authDir,
          () => files.secrets,
        ),
    );
    // Loaded on first use, with the node: modules they need (child_process, net,
    // crypto, axios): `auth token` with a valid cache starts without them (docs/performance.md, "The login flow").
    let http: Http.HttpClient | undefined;
    const httpClient = () =>
      (http ??= new (require('../../adapters/login/helpers/http-client') as typeof Http).HttpClient());
    // Every use case that can refresh or obtain a token injects the provider, `auth token`
    // too: it is loaded on the first call to it, which a valid cache never makes.
    let oidc: IdentityProvider | undefined;
    const provider = () =>
      (oidc ??= new (
        require('../../adapters/login/outbound/identity-provider/oidc-identity-provider') as typeof Oidc
      ).OidcIdentityProvider(httpClient()));
    const lazyProvider: IdentityProvider = {
      discover: (...args) => provider().discover(...args),
      exchangeCode: (...args) => provider().exchangeCode(...args),
      refresh: (...args) => provider().refresh(...args),
      clientCredentials: (...args) => provider().clientCredentials(...args),
      tokenExchange: (...args) => provider().tokenExchange(...args),
      pushAuthorizationRequest: (...args) => provider().pushAuthorizationRequest(...args),
      revoke: (...args) => provider().revoke(...args),
    };
    bind(IDENTITY_PROVIDER).toConstantValue(lazyProvider);
    // jose is loaded with its adapter on the first id_token received, never to read the cache.
    // One verifier per process: it keeps the provider's JWK Set in memory.
    let verifier: IdTokenVerifier | undefined;
    const lazyVerifier: IdTokenVerifier = {
      verify: (idToken, verification) =>
        (verifier ??= new (
          require('../../adapters/login/outbound/id-token-verifier/jose-id-token-verifier') as typeof IdTokens
        ).JoseIdTokenVerifier(httpClient())).verify(idToken, verification),
    };
    bind(ID_TOKEN_VERIFIER).toConstantValue(lazyVerifier);
    bind(DEVICE_AUTHORIZATION).toDynamicValue(
      () =>
        new (
          require('../../adapters/login/outbound/identity-provider/oidc-device-authorization') as typeof Device
        ).OidcDeviceAuthorization(httpClient()),
    );
    bind(GIT_HOST).toDynamicValue(
      () =>
        new (require('../../adapters/login/outbound/git-host/gitea-git-host') as typeof Gitea).GiteaGitHost(
          httpClient(),
        ),
    );
    bind(BOARD_TOOL).toDynamicValue(
      () =>
        new (require('../../adapters/login/outbound/board-tool/planka-board-tool') as typeof Planka).PlankaBoardTool(
          httpClient(),
        ),
    );
    bind(CALLBACK_LISTENER).toDynamicValue(
      () =>
        new (
          require('../../adapters/login/outbound/callback-listener/loopback-callback-listener') as typeof Callback
        ).LoopbackCallbackListener(),
    );
    bind(BROWSER).toDynamicValue(
      () => new (require('../../adapters/login/outbound/browser/system-browser') as typeof Browser).SystemBrowser(),
    );
    bind(PROMPT).toDynamicValue(
      () => new (require('../../adapters/login/outbound/prompt/stdin-prompt') as typeof Prompt).StdinPrompt(),
    );
    bind(RANDOM).toDynamicValue(
      () => new (require('../../adapters/login/outbound/random/node-random') as typeof Random).NodeRandom(),
    );
    bind(HASHER).toDynamicValue(
      () => new (require('../../adapters/login/outbound/hasher/node-hasher') as typeof Hasher).NodeHasher(),
    );
    bind(KUBE_CONFIG).toDynamicValue(
      () =>
        new (require('../../adapters/login/outbound/kube-config/yaml-kube-config') as typeof KubeConfig).YamlKubeConfig(
          kubeConfigFiles(),
        ),
    );
    bind(GIT_CONFIG).toDynamicValue(
      () => new (require('../../adapters/login/outbound/git-config/git-cli-config') as typeof GitConfig).GitCliConfig(),
    );
    bind(NOTIFIER).toDynamicValue(() => new StderrNotifier());
    bind(CLUSTER_DISCOVERY).to(NoClusterDiscovery);
    if (!isBound(CLOCK)) bind(CLOCK).toDynamicValue(() => files.clock);
  });
}

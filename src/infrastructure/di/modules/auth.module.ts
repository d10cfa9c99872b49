import { ContainerModule } from 'inversify';
import { AuthScopes } from '../../../application/auth/auth-scopes';
import { BrowserOpener } from '../../../application/auth/browser-opener';
import { GetGiteaToken } from '../../../application/auth/get-gitea-token.use-case';
import { GetToken } from '../../../application/auth/get-token.use-case';
import { GitLogin } from '../../../application/auth/git-login.use-case';
import { Login } from '../../../application/auth/login.use-case';
import { Logout } from '../../../application/auth/logout.use-case';
import { SetGiteaToken } from '../../../application/auth/set-gitea-token.use-case';
import { SsoLogin } from '../../../application/auth/sso-login.use-case';
import { Status } from '../../../application/auth/status.use-case';
import { ListBoards } from '../../../application/boards/list-boards.use-case';
import { SetBoardApiKey } from '../../../application/boards/set-board-api-key.use-case';
import { DeleteContext } from '../../../application/config/delete-context.use-case';
import { GetContexts } from '../../../application/config/get-contexts.use-case';
import { SetContext } from '../../../application/config/set-context.use-case';
import { SetHost } from '../../../application/config/set-host.use-case';
import { UseContext } from '../../../application/config/use-context.use-case';
import { ViewConfig } from '../../../application/config/view-config.use-case';
import { BOARD_CREDENTIALS } from '../../../application/ports/board-credentials.port';
import { BOARD_TOOL } from '../../../application/ports/board-tool.port';
import { BROWSER } from '../../../application/ports/browser.port';
import { CALLBACK_LISTENER } from '../../../application/ports/callback-listener.port';
import { CLOCK } from '../../../application/ports/clock.port';
import { CLUSTER_DISCOVERY } from '../../../application/ports/cluster-discovery.port';
import { CONFIG_STORE } from '../../../application/ports/config-store.port';
import { GIT_HOST } from '../../../application/ports/git-host.port';
import { HASHER } from '../../../application/ports/hasher.port';
import { IDENTITY_PROVIDER } from '../../../application/ports/identity-provider.port';
import { NOTIFIER } from '../../../application/ports/notifier.port';
import { PROMPT } from '../../../application/ports/prompt.port';
import { RANDOM } from '../../../application/ports/random.port';
import { REFRESH_LOCK } from '../../../application/ports/refresh-lock.port';
import { TOKEN_CACHE } from '../../../application/ports/token-cache.port';
import { SystemBrowser } from '../../../adapters/outbound/browser/system-browser';
import { FsBoardCredentials } from '../../../adapters/outbound/cache/fs-board-credentials';
import { FsRefreshLock } from '../../../adapters/outbound/cache/fs-refresh-lock';
import { FsTokenCache } from '../../../adapters/outbound/cache/fs-token-cache';
import { LoopbackCallbackListener } from '../../../adapters/outbound/callback/loopback-callback-listener';
import { SystemClock } from '../../../adapters/outbound/clock/system-clock';
import { YamlConfigStore } from '../../../adapters/outbound/config/yaml-config-store';
import { NodeHasher, NodeRandom } from '../../../adapters/outbound/crypto/node-crypto';
import { NoClusterDiscovery } from '../../../adapters/outbound/discovery/no-cluster-discovery';
import { PlankaBoardTool } from '../../../adapters/outbound/http/boards/planka-board-tool';
import { GiteaGitHost } from '../../../adapters/outbound/http/gitea/gitea-git-host';
import { HttpClient } from '../../../adapters/outbound/http/http-client';
import { OidcIdentityProvider } from '../../../adapters/outbound/http/oidc/oidc-identity-provider';
import { StderrNotifier } from '../../../adapters/outbound/notify/stderr-notifier';
import { StdinPrompt } from '../../../adapters/outbound/prompt/stdin-prompt';
import { AuthPaths } from '../../config/auth-paths';

export type AuthModuleConfig = AuthPaths;

/** The login flow, contexts and boards: their use cases and the adapters behind their ports. */
export function authModule(paths: AuthModuleConfig): ContainerModule {
  return new ContainerModule(({ bind, isBound }) => {
    const http = new HttpClient();
    bind(TOKEN_CACHE).toConstantValue(new FsTokenCache(paths.authDir));
    bind(REFRESH_LOCK).toConstantValue(new FsRefreshLock(paths.authDir));
    bind(BOARD_CREDENTIALS).toConstantValue(new FsBoardCredentials(paths.authDir));
    bind(CONFIG_STORE).toConstantValue(new YamlConfigStore(paths.configFile));
    bind(IDENTITY_PROVIDER).toDynamicValue(() => new OidcIdentityProvider(http));
    bind(GIT_HOST).toDynamicValue(() => new GiteaGitHost(http));
    bind(BOARD_TOOL).toDynamicValue(() => new PlankaBoardTool(http));
    bind(CALLBACK_LISTENER).toDynamicValue(() => new LoopbackCallbackListener());
    bind(BROWSER).toDynamicValue(() => new SystemBrowser());
    bind(PROMPT).toDynamicValue(() => new StdinPrompt());
    bind(NOTIFIER).toDynamicValue(() => new StderrNotifier());
    bind(CLUSTER_DISCOVERY).to(NoClusterDiscovery);
    bind(RANDOM).to(NodeRandom);
    bind(HASHER).to(NodeHasher);
    if (!isBound(CLOCK)) bind(CLOCK).to(SystemClock);
    for (const service of [AuthScopes, BrowserOpener, GetToken, SsoLogin, GitLogin, Login, SetGiteaToken, GetGiteaToken, Status, Logout]) {
      bind(service as new (...args: never[]) => unknown).toSelf();
    }
    for (const service of [ListBoards, SetBoardApiKey, SetHost, GetContexts, UseContext, SetContext, DeleteContext, ViewConfig]) {
      bind(service as new (...args: never[]) => unknown).toSelf();
    }
  });
}

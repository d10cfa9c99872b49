import { ContainerModule } from 'inversify';
import { AuthScopes } from '../../application/login/auth/auth-scopes';
import { BrowserOpener } from '../../application/login/auth/browser-opener';
import { GetGiteaToken } from '../../application/login/auth/get-gitea-token.use-case';
import { GetToken } from '../../application/login/auth/get-token.use-case';
import { GitLogin } from '../../application/login/auth/git-login.use-case';
import { Login } from '../../application/login/auth/login.use-case';
import { Logout } from '../../application/login/auth/logout.use-case';
import { SetGiteaToken } from '../../application/login/auth/set-gitea-token.use-case';
import { SsoLogin } from '../../application/login/auth/sso-login.use-case';
import { Status } from '../../application/login/auth/status.use-case';
import { ListBoards } from '../../application/login/boards/list-boards.use-case';
import { SetBoardApiKey } from '../../application/login/boards/set-board-api-key.use-case';
import { DeleteContext } from '../../application/login/contexts/delete-context.use-case';
import { GetContexts } from '../../application/login/contexts/get-contexts.use-case';
import { SetContext } from '../../application/login/contexts/set-context.use-case';
import { SetHost } from '../../application/login/contexts/set-host.use-case';
import { UseContext } from '../../application/login/contexts/use-context.use-case';
import { ViewConfig } from '../../application/login/contexts/view-config.use-case';
import { BOARD_CREDENTIALS } from '../../application/login/ports/board-credentials.port';
import { BOARD_TOOL } from '../../application/login/ports/board-tool.port';
import { BROWSER } from '../../application/login/ports/browser.port';
import { CALLBACK_LISTENER } from '../../application/login/ports/callback-listener.port';
import { CLOCK } from '../../application/shared/ports/clock.port';
import { CLUSTER_DISCOVERY } from '../../application/login/ports/cluster-discovery.port';
import { CONFIG_STORE } from '../../application/login/ports/config-store.port';
import { GIT_HOST } from '../../application/login/ports/git-host.port';
import { HASHER } from '../../application/login/ports/hasher.port';
import { IDENTITY_PROVIDER } from '../../application/login/ports/identity-provider.port';
import { NOTIFIER } from '../../application/login/ports/notifier.port';
import { PROMPT } from '../../application/login/ports/prompt.port';
import { RANDOM } from '../../application/login/ports/random.port';
import { REFRESH_LOCK } from '../../application/login/ports/refresh-lock.port';
import { TOKEN_CACHE } from '../../application/login/ports/token-cache.port';
import { SystemBrowser } from '../../adapters/login/outbound/browser/system-browser';
import { FsBoardCredentials } from '../../adapters/login/outbound/board-credentials/fs-board-credentials';
import { FsRefreshLock } from '../../adapters/login/outbound/refresh-lock/fs-refresh-lock';
import { FsTokenCache } from '../../adapters/login/outbound/token-cache/fs-token-cache';
import { LoopbackCallbackListener } from '../../adapters/login/outbound/callback-listener/loopback-callback-listener';
import { SystemClock } from '../../adapters/shared/outbound/clock/system-clock';
import { YamlConfigStore } from '../../adapters/login/outbound/config-store/yaml-config-store';
import { NodeHasher } from '../../adapters/login/outbound/hasher/node-hasher';
import { NodeRandom } from '../../adapters/login/outbound/random/node-random';
import { NoClusterDiscovery } from '../../adapters/login/outbound/cluster-discovery/no-cluster-discovery';
import { PlankaBoardTool } from '../../adapters/login/outbound/board-tool/planka-board-tool';
import { GiteaGitHost } from '../../adapters/login/outbound/git-host/gitea-git-host';
import { HttpClient } from '../../adapters/login/helpers/http-client';
import { OidcIdentityProvider } from '../../adapters/login/outbound/identity-provider/oidc-identity-provider';
import { StderrNotifier } from '../../adapters/login/outbound/notifier/stderr-notifier';
import { StdinPrompt } from '../../adapters/login/outbound/prompt/stdin-prompt';
import { AuthPaths } from './auth-paths';

export type LoginModuleConfig = AuthPaths;

/** The login flow, contexts and boards: their use cases and the adapters behind their ports. */
export function loginModule(paths: LoginModuleConfig): ContainerModule {
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
    for (const service of [
      AuthScopes,
      BrowserOpener,
      GetToken,
      SsoLogin,
      GitLogin,
      Login,
      SetGiteaToken,
      GetGiteaToken,
      Status,
      Logout,
    ]) {
      bind(service as new (...args: never[]) => unknown).toSelf();
    }
    for (const service of [
      ListBoards,
      SetBoardApiKey,
      SetHost,
      GetContexts,
      UseContext,
      SetContext,
      DeleteContext,
      ViewConfig,
    ]) {
      bind(service as new (...args: never[]) => unknown).toSelf();
    }
  });
}

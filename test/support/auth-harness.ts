import { ContainerModule } from 'inversify';
import { BOARD_CREDENTIALS } from '../../src/application/login/ports/board-credentials.port';
import { BOARD_TOOL } from '../../src/application/login/ports/board-tool.port';
import { BROWSER } from '../../src/application/login/ports/browser.port';
import { CALLBACK_LISTENER } from '../../src/application/login/ports/callback-listener.port';
import { CLOCK } from '../../src/application/shared/ports/clock.port';
import { CLUSTER_DISCOVERY } from '../../src/application/login/ports/cluster-discovery.port';
import { CONFIG_STORE } from '../../src/application/login/ports/config-store.port';
import { GIT_HOST } from '../../src/application/login/ports/git-host.port';
import { HASHER } from '../../src/application/login/ports/hasher.port';
import { IDENTITY_PROVIDER } from '../../src/application/login/ports/identity-provider.port';
import { NOTIFIER } from '../../src/application/login/ports/notifier.port';
import { PROMPT } from '../../src/application/login/ports/prompt.port';
import { RANDOM } from '../../src/application/login/ports/random.port';
import { REFRESH_LOCK } from '../../src/application/login/ports/refresh-lock.port';
import { TOKEN_CACHE } from '../../src/application/login/ports/token-cache.port';
import { Context, SkiffConfig } from '../../src/domain/login/contexts/contexts';
import { buildContainer } from '../../src/infrastructure/shared/container';
import { FakeBoardTool } from '../fakes/fake-board-tool';
import { FakeCallbackListener } from '../fakes/fake-callback-listener';
import { FakeClock } from '../fakes/fake-clock';
import { FakeIdentityProvider } from '../fakes/fake-identity-provider';
import { FakeRefreshLock } from '../fakes/fake-refresh-lock';
import { FakeTokenCache } from '../fakes/fake-token-cache';
import {
  FakeBoardCredentials,
  FakeBrowser,
  FakeClusterDiscovery,
  FakeConfigStore,
  FakeGitHost,
  FakePrompt,
  NodeSha256,
  RecordingNotifier,
  SequenceRandom,
} from '../fakes/simple-fakes';
import { NOW } from './tokens';

/** A config with one context `local` for example.com, current. */
export function configWith(...contexts: Context[]): SkiffConfig {
  return { currentContext: contexts[0]?.name, contexts };
}

/**
 * The real composition root with every port of the login flow rebound to a fake:
 * the use cases are resolved exactly as the commands resolve them.
 */
export function authHarness(config: SkiffConfig = configWith({ name: 'local', domain: 'example.com' })) {
  const fakes = {
    cache: new FakeTokenCache(),
    lock: new FakeRefreshLock(),
    provider: new FakeIdentityProvider(),
    listener: new FakeCallbackListener(),
    browser: new FakeBrowser(),
    prompt: new FakePrompt(),
    notifier: new RecordingNotifier(),
    configStore: new FakeConfigStore(config),
    discovery: new FakeClusterDiscovery(),
    random: new SequenceRandom(),
    hasher: new NodeSha256(),
    clock: new FakeClock(NOW.toISOString()),
    gitHost: new FakeGitHost(),
    boardTool: new FakeBoardTool(),
    boardCredentials: new FakeBoardCredentials(),
  };
  const overrides = new ContainerModule(({ rebindSync }) => {
    const pairs: Array<[symbol, unknown]> = [
      [TOKEN_CACHE, fakes.cache],
      [REFRESH_LOCK, fakes.lock],
      [IDENTITY_PROVIDER, fakes.provider],
      [CALLBACK_LISTENER, fakes.listener],
      [BROWSER, fakes.browser],
      [PROMPT, fakes.prompt],
      [NOTIFIER, fakes.notifier],
      [CONFIG_STORE, fakes.configStore],
      [CLUSTER_DISCOVERY, fakes.discovery],
      [RANDOM, fakes.random],
      [HASHER, fakes.hasher],
      [CLOCK, fakes.clock],
      [GIT_HOST, fakes.gitHost],
      [BOARD_TOOL, fakes.boardTool],
      [BOARD_CREDENTIALS, fakes.boardCredentials],
    ];
    for (const [token, fake] of pairs) rebindSync(token).toConstantValue(fake);
  });
  const container = buildContainer(
    { login: { authDir: '/nonexistent/auth', configFile: '/nonexistent/config.yaml' } },
    overrides,
  );
  return { ...fakes, get: <T>(service: new (...args: never[]) => T): T => container.get(service) };
}

export type AuthHarness = ReturnType<typeof authHarness>;

import 'reflect-metadata';
import { ContainerModule } from 'inversify';
import { AuthTokenFields, AuthTokens } from '../../../domain/login/auth/auth-tokens';
import { Context, SkiffConfig } from '../../../domain/login/contexts/contexts';
import { BOARD_CREDENTIALS } from '../../../application/login/ports/board-credentials.port';
import { BOARD_TOOL } from '../../../application/login/ports/board-tool.port';
import { BROWSER } from '../../../application/login/ports/browser.port';
import { CALLBACK_LISTENER } from '../../../application/login/ports/callback-listener.port';
import { CLOCK } from '../../../application/shared/ports/clock.port';
import { CLUSTER_DISCOVERY } from '../../../application/login/ports/cluster-discovery.port';
import { CONFIG_STORE } from '../../../application/login/ports/config-store.port';
import { GIT_HOST } from '../../../application/login/ports/git-host.port';
import { HASHER } from '../../../application/login/ports/hasher.port';
import { IDENTITY_PROVIDER } from '../../../application/login/ports/identity-provider.port';
import { NOTIFIER } from '../../../application/login/ports/notifier.port';
import { PROMPT } from '../../../application/login/ports/prompt.port';
import { RANDOM } from '../../../application/login/ports/random.port';
import { REFRESH_LOCK } from '../../../application/login/ports/refresh-lock.port';
import { TOKEN_CACHE } from '../../../application/login/ports/token-cache.port';
import { CLIENT_SECRETS } from '../../../application/login/ports/client-secrets.port';
import { FakeClientSecrets } from '../../../adapters/fakes/login/fake-client-secrets';
import { SUBJECT_TOKENS } from '../../../application/login/ports/subject-tokens.port';
import { FakeSubjectTokens } from '../../../adapters/fakes/login/fake-subject-tokens';
import { SECRET_STORE } from '../../../application/login/ports/secret-store.port';
import { DPOP_KEYS } from '../../../application/login/ports/dpop-keys.port';
import { FakeDpopKeys } from '../../../adapters/fakes/login/fake-dpop-keys';
import { FakeSecretStore } from '../../../adapters/fakes/login/fake-secret-store';
import { DEVICE_AUTHORIZATION } from '../../../application/login/ports/device-authorization.port';
import { FakeDeviceAuthorization } from '../../../adapters/fakes/login/fake-device-authorization';
import { CACHED_DOMAINS } from '../../../application/login/ports/cached-domains.port';
import { FakeCachedDomains } from '../../../adapters/fakes/login/fake-cached-domains';
import { FakeBoardTool } from '../../../adapters/fakes/login/fake-board-tool';
import { FakeCallbackListener } from '../../../adapters/fakes/login/fake-callback-listener';
import { ID_TOKEN_VERIFIER } from '../../../application/login/ports/id-token-verifier.port';
import { FakeIdTokenVerifier } from '../../../adapters/fakes/login/fake-id-token-verifier';
import { FakeIdentityProvider } from '../../../adapters/fakes/login/fake-identity-provider';
import { FakeRefreshLock } from '../../../adapters/fakes/login/fake-refresh-lock';
import { FakeTokenCache } from '../../../adapters/fakes/login/fake-token-cache';
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
} from '../../../adapters/fakes/login/simple-fakes';
import { aRecord, NOW } from '../../../adapters/fakes/login/tokens';
import { FakeClock } from '../../../adapters/fakes/shared/fake-clock';
import { buildContainer, embedModules } from '../../shared/container';
import { CommandRun, runInProcess, RunnableCommand } from './run-in-process';

/** A contexts file with these contexts, the first one current. */
export function configWith(...contexts: Context[]): SkiffConfig {
  return { currentContext: contexts[0]?.name, contexts };
}

/**
 * skiff's application layer as the commands get it, from the real composition root,
 * with every port of the login flow rebound to a fake (the fakes skiff's own tests
 * use, held to the real adapters' behaviour by contract tests). No file, network or
 * browser is touched. The default contexts file has one context `local` for
 * example.com, current; the clock says NOW.
 */
export function skiffTestbed(config: SkiffConfig = configWith({ name: 'local', domain: 'example.com' })) {
  const fakes = {
    cache: new FakeTokenCache(),
    lock: new FakeRefreshLock(),
    provider: new FakeIdentityProvider(),
    verifier: new FakeIdTokenVerifier(),
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
    device: new FakeDeviceAuthorization(),
    clientSecrets: new FakeClientSecrets(),
    subjectTokens: new FakeSubjectTokens(),
    secretStore: new FakeSecretStore(),
    dpopKeys: new FakeDpopKeys(),
  };
  const overrides = new ContainerModule(({ rebindSync }) => {
    const pairs: Array<[symbol, unknown]> = [
      [TOKEN_CACHE, fakes.cache],
      [REFRESH_LOCK, fakes.lock],
      [IDENTITY_PROVIDER, fakes.provider],
      [ID_TOKEN_VERIFIER, fakes.verifier],
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
      [DEVICE_AUTHORIZATION, fakes.device],
      [CLIENT_SECRETS, fakes.clientSecrets],
      [SUBJECT_TOKENS, fakes.subjectTokens],
      [SECRET_STORE, fakes.secretStore],
      [DPOP_KEYS, fakes.dpopKeys],
      [CACHED_DOMAINS, new FakeCachedDomains(fakes.cache)],
    ];
    for (const [token, fake] of pairs) rebindSync(token).toConstantValue(fake);
  });
  // Paths that cannot exist: the fakes replace every adapter that would use them.
  const paths = { authDir: '/nonexistent/skiff/auth', configFile: '/nonexistent/skiff/config.yaml' };
  const container = buildContainer({ login: paths }, overrides);
  return {
    ...fakes,
    /** A use case, resolved as a command resolves it. */
    get: <T>(useCase: new (...args: never[]) => T): T => container.get(useCase),
    /**
     * Signs in on `domain` (the current context's by default): a cache record for
     * alice@example.com valid for an hour, changed by `fields`.
     */
    signIn(fields: Partial<AuthTokenFields> = {}): AuthTokens {
      const current = config.contexts.find((c) => c.name === config.currentContext);
      const domain = fields.domain ?? current?.domain ?? '';
      const record = aRecord({ domain, ...fields });
      fakes.cache.records.set(domain, record);
      return record;
    },
    /**
     * Runs an oclif command class of skiff or of a plugin with these fakes: its exit
     * code and output. One run at a time: the output is captured process-wide.
     */
    run: (command: RunnableCommand, argv: readonly string[] = []): Promise<CommandRun> => {
      const release = embedModules(overrides);
      return runInProcess(command, argv).finally(release);
    },
  };
}

export type SkiffTestbed = ReturnType<typeof skiffTestbed>;

/**
 * skiff/testing: run a command (skiff's own or a plugin's) against skiff's
 * application layer with fake adapters, in the test's own process. See the README,
 * "Writing a plugin", and examples/plugin-hello/test.
 */
export { configWith, skiffTestbed, type SkiffTestbed } from './skiff-testbed';
export type { CommandRun, RunnableCommand } from './run-in-process';
export { aRecord, idToken, NOW } from '../../../adapters/login/testing/tokens';
export { FakeBoardTool } from '../../../adapters/login/testing/fake-board-tool';
export { FakeCallbackListener } from '../../../adapters/login/testing/fake-callback-listener';
export { FakeIdentityProvider, type TokenCall } from '../../../adapters/login/testing/fake-identity-provider';
export { FakeRefreshLock } from '../../../adapters/login/testing/fake-refresh-lock';
export { FakeTokenCache } from '../../../adapters/login/testing/fake-token-cache';
export {
  FakeBoardCredentials,
  FakeBrowser,
  FakeClusterDiscovery,
  FakeConfigStore,
  FakeGitHost,
  FakePrompt,
  NodeSha256,
  RecordingNotifier,
  SequenceRandom,
} from '../../../adapters/login/testing/simple-fakes';
export { FakeClock } from '../../../adapters/shared/testing/fake-clock';
export type { Context, SkiffConfig } from '../../../domain/login/contexts/contexts';
export type { AuthTokenFields, AuthTokens } from '../../../domain/login/auth/auth-tokens';

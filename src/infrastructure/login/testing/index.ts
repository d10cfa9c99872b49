/**
 * skiff-cli/testing: run a command (skiff's own or a plugin's) against skiff's
 * application layer with fake adapters, in the test's own process. See docs/plugins.md,
 * "Testing a plugin", and examples/plugin-hello/test. The fakes are reached through
 * the testbed (`skiff.cache`, `skiff.provider`, ...), which builds and binds them.
 */
export { configWith, skiffTestbed, type SkiffTestbed } from './skiff-testbed';
export type { CommandRun, RunnableCommand } from './run-in-process';
export { NOW } from '../../../adapters/fakes/login/tokens';
export type { Context, SkiffConfig } from '../../../domain/login/contexts/contexts';
export type { AuthTokenFields, AuthTokens } from '../../../domain/login/auth/auth-tokens';

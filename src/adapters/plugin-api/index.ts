/**
 * skiff-cli/plugin: what a plugin's commands build on (docs/plugins.md).
 * A plugin imports this module and nothing else of skiff's; at run time it gets
 * the running skiff's (its composition root, token cache and lock).
 */
export { SkiffCommand } from './skiff-command';
export type { Session } from '../../application/login/auth/get-session.use-case';
export type { ServiceUrls } from '../../domain/login/contexts/service-urls';
export {
  ConfigurationError,
  DomainError,
  IdentityError,
  InternalError,
  NetworkError,
  UsageError,
  type ErrorKind,
} from '../../domain/shared/errors';
export { EXIT } from '../shared/inbound/cli/exit-codes';
export { Args, Flags } from '@oclif/core';

import { Flags } from '@oclif/core';
import { AuthTarget } from '../../../../application/login/auth/auth-target';
import { UsageError } from '../../../../domain/shared/errors';
import { AppConfig } from '../../../../infrastructure/shared/app-config';
import { authPaths } from '../../../../infrastructure/login/auth-paths';
import { BaseCommand } from '../../../shared/inbound/cli/base-command';

/** --env was removed; contexts replace it (docs/login-contract.md, "Commands"). */
export function rejectEnvFlag(argv: readonly string[]): void {
  const end = argv.indexOf('--');
  if ((end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '--env' || arg.startsWith('--env='))) {
    throw new UsageError(
      'the --env flag was removed: choose the environment with --context <name> (see `skiff config get-contexts`)',
      'CLI.ENV_REMOVED',
    );
  }
}

export const domainFlag = Flags.string({
  description: 'Domain of the platform (services at auth.<domain>, src.<domain>, projects.<domain>).',
});
export const contextFlag = Flags.string({
  description: 'Context to use instead of the current one (see `skiff config get-contexts`).',
});

/** Commands of the login flow, the contexts and the boards: the `auth` part of the app. */
export abstract class AppCommand extends BaseCommand {
  protected override appConfig(): AppConfig {
    return { login: authPaths() };
  }

  protected override async init(): Promise<void> {
    await super.init();
    rejectEnvFlag(this.argv);
  }
}

/** A command that signs in somewhere: --domain and --context (the removed --env is refused in init). */
export abstract class AuthCommand extends AppCommand {
  static override baseFlags = { domain: domainFlag, context: contextFlag };

  protected target(flags: { domain?: string; context?: string }): AuthTarget {
    return { domain: flags.domain, context: flags.context };
  }
}

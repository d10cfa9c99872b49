import { AuthTarget } from '../../../../application/login/auth/auth-target';
import { UsageError } from '../../../../domain/shared/errors';
import { AppConfig } from '../../../../infrastructure/shared/app-config';
import { authPaths } from '../../../../infrastructure/login/auth-paths';
import { BaseCommand } from '../../../shared/inbound/cli/base-command';
import { oclifFlags } from '../../../shared/inbound/cli/oclif-flags';
import { TARGET_FLAGS } from './target-flags';

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
  static override baseFlags = oclifFlags(TARGET_FLAGS);

  protected target(flags: { domain?: string; context?: string }): AuthTarget {
    return { domain: flags.domain, context: flags.context };
  }
}

import 'reflect-metadata';
import { Command, Errors } from '@oclif/core';
import { Container } from 'inversify';
import { isDomainError } from '../../../domain/errors';
import { AppConfig } from '../../../infrastructure/config/app-config';
import { buildContainer } from '../../../infrastructure/di/container';
import { EXIT, exitCodeFor } from './exit-codes';

type CommandError = Error & { oclif?: { exit?: number } };

/**
 * The base of every command: builds the container once (only the parts the command
 * asks for), resolves what the command uses, and turns every error into one line
 * on stderr and the contract's exit code (never a stack trace).
 */
export abstract class BaseCommand extends Command {
  private container: Container | undefined;

  /** The parts of the application this command needs wired. */
  protected appConfig(): AppConfig {
    return {};
  }

  protected resolve<T>(token: symbol | (abstract new (...args: never[]) => T)): T {
    this.container ??= buildContainer(this.appConfig());
    return this.container.get<T>(token as symbol);
  }

  protected override async catch(err: CommandError): Promise<never> {
    if (err instanceof Errors.ExitError) throw err;
    const code = isDomainError(err) ? exitCodeFor(err.kind) : (err.oclif?.exit ?? EXIT.unexpected);
    const message = err.message.split('\n')[0] ?? 'unknown error';
    if (this.jsonEnabled()) {
      this.logJson({ error: { kind: isDomainError(err) ? err.kind : 'Internal', message, exitCode: code } });
    } else {
      this.logToStderr(`skiff: ${message}`);
    }
    return this.exit(code);
  }
}

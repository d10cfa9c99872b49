import 'reflect-metadata';
import { Command, Errors } from '@oclif/core';
import { Container } from 'inversify';
import { AppConfig } from '../../../../infrastructure/shared/app-config';
import { buildContainer } from '../../../../infrastructure/shared/container';
import { CommandContext, errorReport } from './error-report';
import { guardUnfinished, UnfinishedGuard } from './unfinished-work';

type CommandError = Error & { oclif?: { exit?: number } };

/**
 * The base of every command: builds the container once (only the parts the command
 * asks for), resolves what the command uses, and turns every error into one line
 * on stderr and its kind's exit code (never a stack trace). From init to
 * finally a command whose work is left pending on an empty event loop fails with
 * exit 1 instead of exiting 0 (see guardUnfinished).
 */
export abstract class BaseCommand extends Command {
  private container: Container | undefined;
  private unfinished: UnfinishedGuard | undefined;

  protected override async init(): Promise<void> {
    this.unfinished = guardUnfinished(this.id?.split(':').join(' ') ?? 'the command');
    await super.init();
  }

  protected override async finally(err: Error | undefined): Promise<void> {
    try {
      await super.finally(err);
    } finally {
      this.unfinished?.done();
    }
  }

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
    const report = errorReport(err, this.context());
    if (this.jsonEnabled()) {
      this.logJson({ error: report });
    } else {
      this.logToStderr(`skiff: ${report.message}`);
    }
    return this.exit(report.exitCode);
  }

  /** The command as typed, and its first example, for the hint after a usage error. */
  private context(): CommandContext {
    const first = this.ctor.examples?.[0];
    const example = typeof first === 'string' ? first : first?.command;
    return {
      name: this.id?.split(':').join(' ') ?? '',
      example: example?.replace(/<%= config\.bin %>/g, this.config.bin),
    };
  }
}

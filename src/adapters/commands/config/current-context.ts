import { GetContexts } from '../../../application/login/contexts/get-contexts.use-case';
import { ConfigurationError } from '../../../domain/shared/errors';
import { AppCommand } from '../../login/inbound/cli/auth-command';

export default class ConfigCurrentContext extends AppCommand {
  static override summary = 'Print the name of the context in use.';
  static override description = 'The current-context setting, else the context `local`.';
  static override examples = ['<%= config.bin %> config current-context'];

  async run(): Promise<void> {
    await this.parse(ConfigCurrentContext);
    const { current } = await this.resolve(GetContexts).execute();
    if (current === undefined) {
      throw new ConfigurationError(
        'no context is in use: run `skiff config set --host <domain>` or `skiff config use-context <name>`',
        'CONFIG.NO_CURRENT_CONTEXT',
      );
    }
    this.log(current);
  }
}

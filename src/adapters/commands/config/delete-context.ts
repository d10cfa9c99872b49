import { Args } from '@oclif/core';
import { DeleteContext } from '../../../application/login/contexts/delete-context.use-case';
import { AppCommand } from '../../login/inbound/cli/auth-command';

export default class ConfigDeleteContext extends AppCommand {
  static override summary = 'Delete a context.';
  static override description =
    'When it was the current one, the current-context setting is cleared. Token caches are kept.';
  static override examples = ['<%= config.bin %> config delete-context dev'];
  static override args = {
    name: Args.string({ ignoreStdin: true, required: true, description: 'Name of the context.' }),
  };

  async run(): Promise<void> {
    const { args } = await this.parse(ConfigDeleteContext);
    await this.resolve(DeleteContext).execute(args.name);
    this.log(`Context ${args.name} deleted.`);
  }
}

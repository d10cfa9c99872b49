import { Args } from '@oclif/core';
import { UseContext } from '../../../application/login/contexts/use-context.use-case';
import { AppCommand } from '../../login/inbound/cli/auth-command';

export default class ConfigUseContext extends AppCommand {
  static override summary = 'Make a context the current one.';
  static override examples = ['<%= config.bin %> config use-context prod'];
  static override args = {
    name: Args.string({ ignoreStdin: true, required: true, description: 'Name of an existing context.' }),
  };

  async run(): Promise<void> {
    const { args } = await this.parse(ConfigUseContext);
    await this.resolve(UseContext).execute(args.name);
    this.log(`Switched to context ${args.name}.`);
  }
}

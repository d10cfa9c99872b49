import { Flags } from '@oclif/core';
import { SetHost } from '../../../application/login/contexts/set-host.use-case';
import { AppCommand } from '../../login/inbound/cli/auth-command';

export default class ConfigSet extends AppCommand {
  static override summary = 'Set the domain of the context in use.';
  static override description =
    'Changes the current context (or creates the context `local` when there is none) and makes it current.';
  static override examples = ['<%= config.bin %> config set --host example.com'];
  static override flags = {
    host: Flags.string({
      required: true,
      description: 'The platform domain (services at auth.<domain>, src.<domain>, projects.<domain>).',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigSet);
    const { context } = await this.resolve(SetHost).execute(flags.host);
    this.log(`Context ${context} now uses the domain ${flags.host}.`);
  }
}

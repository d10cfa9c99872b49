import { Args, Flags } from '@oclif/core';
import { SetContext } from '../../../application/login/contexts/set-context.use-case';
import { AppCommand } from '../../login/inbound/cli/auth-command';

const url = (what: string) =>
  Flags.string({
    description: `Base URL of the ${what} for this context (https, or http on a loopback host; "" removes it).`,
  });

export default class ConfigSetContext extends AppCommand {
  static override summary = 'Create a context or change its fields.';
  static override description =
    'A context names a domain and may override the base URLs of its services (identity provider, git host, board tool).';
  static override examples = [
    '<%= config.bin %> config set-context prod --domain example.com',
    '<%= config.bin %> config set-context dev --domain dev.example.com --auth-url http://127.0.0.1:8080',
  ];
  static override args = {
    name: Args.string({ ignoreStdin: true, required: true, description: 'Name of the context.' }),
  };
  static override flags = {
    domain: Flags.string({ description: 'The platform domain of this context.' }),
    'auth-url': url('identity provider (default https://auth.<domain>)'),
    'git-url': url('git host (default https://src.<domain>)'),
    'boards-url': url('board tool API (default https://projects.<domain>/api)'),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ConfigSetContext);
    const { created } = await this.resolve(SetContext).execute(args.name, {
      domain: flags.domain,
      identityProviderUrl: flags['auth-url'],
      gitHostUrl: flags['git-url'],
      boardsUrl: flags['boards-url'],
    });
    this.log(`Context ${args.name} ${created ? 'created' : 'modified'}.`);
  }
}

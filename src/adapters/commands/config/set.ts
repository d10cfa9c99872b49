import { Flags } from '@oclif/core';
import { SetHost } from '../../../application/login/contexts/set-host.use-case';
import { SetTokenStore } from '../../../application/login/contexts/set-token-store.use-case';
import { TOKEN_STORE_KINDS } from '../../../domain/login/auth/token-store';
import { UsageError } from '../../../domain/shared/errors';
import { AppCommand } from '../../login/inbound/cli/auth-command';

const WHERE = { keyring: 'in the OS keyring', file: 'in the cache file' } as const;

export default class ConfigSet extends AppCommand {
  static override summary = 'Set the domain or the token store of the context in use.';
  static override description =
    'Changes the current context (or creates the context `local` when there is none) and makes it current. ' +
    '--token-store keyring keeps the tokens in the OS keyring (the cache file then holds no secret) and moves ' +
    'the tokens already there at once; file (the default) keeps them in the cache file.';
  static override examples = [
    '<%= config.bin %> config set --host example.com',
    '<%= config.bin %> config set --token-store keyring',
  ];
  static override flags = {
    host: Flags.string({
      description: 'The platform domain (services at auth.<domain>, src.<domain>, projects.<domain>).',
    }),
    'token-store': Flags.string({
      options: [...TOKEN_STORE_KINDS],
      description: 'Where the tokens are kept: keyring (the OS keyring) or file (the cache file, the default).',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigSet);
    if (flags.host === undefined && flags['token-store'] === undefined)
      throw new UsageError(
        'config set needs --host <domain> or --token-store keyring|file (see `skiff config set --help`; for example: skiff config set --host example.com)',
        'CLI.MISSING_FLAG',
      );
    if (flags.host !== undefined) {
      const { context } = await this.resolve(SetHost).execute(flags.host);
      this.log(`Context ${context} now uses the domain ${flags.host}.`);
    }
    const store = flags['token-store'] as keyof typeof WHERE | undefined;
    if (store !== undefined) {
      const result = await this.resolve(SetTokenStore).execute(store);
      const moved = result.moved === undefined ? '' : ` (the tokens of ${result.moved || 'default'} moved there)`;
      this.log(`Context ${result.context} now keeps its tokens ${WHERE[store]}${moved}.`);
    }
  }
}

import { Flags } from '@oclif/core';
import { SetHost } from '../../../application/login/contexts/set-host.use-case';
import { SetSignInOptions } from '../../../application/login/contexts/set-sign-in-options.use-case';
import { SetTokenStore } from '../../../application/login/contexts/set-token-store.use-case';
import { TOKEN_STORE_KINDS } from '../../../domain/login/auth/token-store';
import { UsageError } from '../../../domain/shared/errors';
import { AppCommand } from '../../login/inbound/cli/auth-command';

const WHERE = { keyring: 'in the OS keyring', file: 'in the cache file' } as const;

export default class ConfigSet extends AppCommand {
  static override summary = 'Set the domain, the token store or the sign-in options of the context in use.';
  static override description =
    'Changes the current context (or creates the context `local` when there is none) and makes it current. ' +
    '--token-store keyring keeps the tokens in the OS keyring (the cache file then holds no secret) and moves ' +
    'the tokens already there at once; file (the default) keeps them in the cache file. --par pushes every ' +
    'authorization request (RFC 9126) and --dpop binds the tokens to a key of this machine (RFC 9449), even ' +
    'where the identity provider does not ask for them; --no-par pushes only where the provider requires it, and ' +
    '--no-dpop asks for bearer tokens again (a provider that requires DPoP then refuses the sign-in).';
  static override examples = [
    '<%= config.bin %> config set --host example.com',
    '<%= config.bin %> config set --token-store keyring',
    '<%= config.bin %> config set --dpop --par',
  ];
  static override flags = {
    host: Flags.string({
      description: 'The platform domain (services at auth.<domain>, src.<domain>, projects.<domain>).',
    }),
    'token-store': Flags.string({
      options: [...TOKEN_STORE_KINDS],
      description: 'Where the tokens are kept: keyring (the OS keyring) or file (the cache file, the default).',
    }),
    par: Flags.boolean({
      allowNo: true,
      description: 'Push authorization requests (RFC 9126) always; --no-par: only when the provider requires it.',
    }),
    dpop: Flags.boolean({
      allowNo: true,
      description: 'Bind tokens to a DPoP key (RFC 9449) always; --no-dpop: only when the provider asks for it.',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigSet);
    if (
      flags.host === undefined &&
      flags['token-store'] === undefined &&
      flags.par === undefined &&
      flags.dpop === undefined
    )
      throw new UsageError(
        'config set needs --host <domain>, --token-store keyring|file, --[no-]par or --[no-]dpop (see `skiff config set --help`; for example: skiff config set --host example.com)',
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
    if (flags.par !== undefined || flags.dpop !== undefined) {
      const { context } = await this.resolve(SetSignInOptions).execute({ par: flags.par, dpop: flags.dpop });
      const said = (name: string, on: boolean | undefined) =>
        on === undefined ? [] : [on ? `always uses ${name}` : `uses ${name} when the identity provider asks`];
      this.log(`Context ${context} now ${[...said('PAR', flags.par), ...said('DPoP', flags.dpop)].join(' and ')}.`);
    }
  }
}

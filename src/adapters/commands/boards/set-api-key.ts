import { Args } from '@oclif/core';
import { SetBoardApiKey } from '../../../application/login/boards/set-board-api-key.use-case';
import { PROMPT, Prompt } from '../../../application/login/ports/prompt.port';
import { AuthCommand } from '../../login/inbound/cli/auth-command';

export default class BoardsSetApiKey extends AuthCommand {
  static override summary = 'Store a board-tool API key, for deployments without the token exchange.';
  static override description =
    'Used by `boards list` instead of exchanging the access token (sent as X-Api-Key). Without the argument (or ' +
    'with "-") the key is read from standard input. Stored per domain, 0600, removed by `auth logout`.';
  static override examples = [
    'printf %s "$PLANKA_API_KEY" | <%= config.bin %> boards set-api-key --domain example.com',
  ];
  static override args = {
    key: Args.string({
      ignoreStdin: true,
      required: false,
      description: 'The API key; "-" or absent: read standard input.',
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(BoardsSetApiKey);
    const key = args.key && args.key !== '-' ? args.key : await this.resolve<Prompt>(PROMPT).secret('Board API key: ');
    await this.resolve(SetBoardApiKey).execute(this.target(flags), key);
    this.log('Board API key stored.');
  }
}

import { GetToken } from '../../../application/login/auth/get-token.use-case';
import { AuthCommand } from '../../login/inbound/cli/auth-command';

export default class AuthToken extends AuthCommand {
  static override summary = 'Print a valid access token (refreshed when needed) for scripts.';
  static override description = 'Prints the token and nothing else on stdout; notices and warnings go to stderr.';
  static override examples = [
    'curl -H "Authorization: Bearer $(<%= config.bin %> auth token)" https://api.example.com/',
  ];

  async run(): Promise<void> {
    const { flags } = await this.parse(AuthToken);
    this.log(await this.resolve(GetToken).execute(this.target(flags)));
  }
}

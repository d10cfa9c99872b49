import { GetToken } from '../../../application/login/auth/get-token.use-case';
import { TokenDetails } from '../../../domain/login/auth/token-details';
import { AuthCommand } from '../../login/inbound/cli/auth-command';

export default class AuthToken extends AuthCommand {
  static override summary = 'Print a valid access token (refreshed when needed) for scripts.';
  static override description =
    'Prints the token and nothing else on stdout; notices and warnings go to stderr. --json prints ' +
    '{"token", "expiresAt", "scopes", "signIn", "tokenStore"} instead (signIn: person or client-credentials; ' +
    'scopes: those skiff asks for when a person signs in, null for a robot).';
  static override examples = [
    'curl -H "Authorization: Bearer $(<%= config.bin %> auth token)" https://api.example.com/',
    '<%= config.bin %> auth token --json',
  ];
  static override enableJsonFlag = true;

  async run(): Promise<TokenDetails | void> {
    const { flags } = await this.parse(AuthToken);
    if (this.jsonEnabled()) return this.resolve(GetToken).details(this.target(flags));
    this.log(await this.resolve(GetToken).execute(this.target(flags)));
  }
}

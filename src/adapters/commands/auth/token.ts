import { Flags } from '@oclif/core';
import { DpopProof } from '../../../application/login/auth/dpop-proof.use-case';
import { GetToken } from '../../../application/login/auth/get-token.use-case';
import { TokenDetails } from '../../../domain/login/auth/token-details';
import { AuthCommand } from '../../login/inbound/cli/auth-command';

export default class AuthToken extends AuthCommand {
  static override summary = 'Print a valid access token (refreshed when needed) for scripts.';
  static override description =
    'Prints the token and nothing else on stdout; notices and warnings go to stderr. --json prints ' +
    '{"token", "expiresAt", "scopes", "signIn", "tokenStore"} instead (signIn: person or client-credentials; ' +
    'scopes: those skiff asks for when a person signs in, null for a robot). With a DPoP-bound token (RFC 9449), ' +
    '--dpop-proof --method M --url U prints a fresh proof for that one request instead, to send as the DPoP header ' +
    'beside `Authorization: DPoP <token>`.';
  static override examples = [
    'curl -H "Authorization: Bearer $(<%= config.bin %> auth token)" https://api.example.com/',
    '<%= config.bin %> auth token --json',
    'curl -H "Authorization: DPoP $(<%= config.bin %> auth token)" -H "DPoP: $(<%= config.bin %> auth token --dpop-proof --method GET --url https://api.example.com/)" https://api.example.com/',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    'dpop-proof': Flags.boolean({
      description: 'Print a DPoP proof (RFC 9449) for one request with the token, instead of the token.',
      dependsOn: ['method', 'url'],
      exclusive: ['json'],
    }),
    method: Flags.string({
      description: 'The HTTP method of the request the proof is for.',
      dependsOn: ['dpop-proof'],
    }),
    url: Flags.string({ description: 'The URL of the request the proof is for.', dependsOn: ['dpop-proof'] }),
  };

  async run(): Promise<TokenDetails | void> {
    const { flags } = await this.parse(AuthToken);
    if (flags['dpop-proof'] && flags.method !== undefined && flags.url !== undefined) {
      this.log(
        await this.resolve(DpopProof).execute({ target: this.target(flags), method: flags.method, url: flags.url }),
      );
      return;
    }
    if (this.jsonEnabled()) return this.resolve(GetToken).details(this.target(flags));
    this.log(await this.resolve(GetToken).execute(this.target(flags)));
  }
}

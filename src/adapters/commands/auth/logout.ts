import { Logout } from '../../../application/login/auth/logout.use-case';
import { AuthCommand } from '../../login/inbound/cli/auth-command';

export default class AuthLogout extends AuthCommand {
  static override summary = "Sign out: remove the active domain's token cache.";
  static override description =
    'Also revokes the refresh token at the identity provider when it offers a revocation endpoint (best effort, ' +
    'at most 5 seconds). Not being logged in is not an error.';
  static override examples = ['<%= config.bin %> auth logout', '<%= config.bin %> auth logout --context prod'];

  async run(): Promise<void> {
    const { flags } = await this.parse(AuthLogout);
    const result = await this.resolve(Logout).execute(this.target(flags));
    const where = result.domain === '' ? '' : ` of ${result.domain}`;
    this.log(result.loggedOut ? `Logged out${where}.` : 'Not logged in: nothing to do.');
  }
}

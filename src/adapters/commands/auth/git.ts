import { GitLogin } from '../../../application/login/auth/git-login.use-case';
import { AuthCommand } from '../../login/inbound/cli/auth-command';
import { browserFlags } from '../../login/inbound/cli/login-flags';
import { gitTokenStoredLine } from '../../login/inbound/cli/login-text';

export default class AuthGit extends AuthCommand {
  static override summary = 'Git token sign-in only: store a personal access token of the git host.';
  static override description =
    "Prints the git host's token page (https://src.<domain>/user/settings/applications), reads the token from " +
    'standard input (without echo on a terminal; piped input is read when stdin is not a terminal), verifies it ' +
    'against /api/v1/user and stores it in the token cache.';
  static override examples = [
    '<%= config.bin %> auth git',
    'printf %s "$GITEA_TOKEN" | <%= config.bin %> auth git --no-browser',
  ];
  static override flags = browserFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(AuthGit);
    const result = await this.resolve(GitLogin).execute({
      target: this.target(flags),
      openBrowser: !flags['no-browser'],
    });
    this.log(gitTokenStoredLine(result.login, result.domain));
  }
}

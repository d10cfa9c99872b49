import { resolve } from 'node:path';
import { SetupGit } from '../../../application/login/auth/setup-git.use-case';
import { AuthCommand } from '../../login/inbound/cli/auth-command';

export default class AuthSetupGit extends AuthCommand {
  static override summary = "Make git use skiff's git token for the git host (a credential helper).";
  static override description =
    "Configures git globally, for https://src.<domain> only (or the context's git host), to ask " +
    '`skiff auth git-credential` for credentials: clone, fetch and push then use the token stored by `auth git`. ' +
    'The token is never written into a git config file or a URL.';
  static override examples = ['<%= config.bin %> auth setup-git', '<%= config.bin %> auth setup-git --context prod'];

  async run(): Promise<void> {
    const { flags } = await this.parse(AuthSetupGit);
    const result = await this.resolve(SetupGit).execute({
      target: this.target(flags),
      program: resolve(process.argv[1]),
    });
    this.log(`git now asks skiff for the credentials of ${result.origin} (configured in ${result.file}).`);
  }
}

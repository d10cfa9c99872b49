import { Args } from '@oclif/core';
import { noGitToken } from '../../../domain/login/auth/auth-errors';
import { SetGiteaToken } from '../../../application/login/auth/set-gitea-token.use-case';
import { PROMPT, Prompt } from '../../../application/login/ports/prompt.port';
import { AuthCommand } from '../../login/inbound/cli/auth-command';
import { gitTokenStoredLine } from '../../login/inbound/cli/login-text';

export default class AuthSetGiteaToken extends AuthCommand {
  static override summary = 'Store a git host token (verified against the git host first).';
  static override description =
    'Without the argument (or with "-") the token is read from standard input, which keeps it out of the shell ' +
    'history and the process list.';
  static override examples = [
    '<%= config.bin %> auth set-gitea-token 0123456789abcdef',
    'printf %s "$GITEA_TOKEN" | <%= config.bin %> auth set-gitea-token --domain example.com',
  ];
  static override args = {
    token: Args.string({
      ignoreStdin: true,
      required: false,
      description: 'The personal access token; "-" or absent: read standard input.',
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AuthSetGiteaToken);
    const token =
      args.token && args.token !== '-' ? args.token : await this.resolve<Prompt>(PROMPT).secret('Git token: ');
    if (token.trim() === '') {
      throw noGitToken(
        'expected a git access token as the argument or on standard input (printf %s "$TOKEN" | skiff auth set-gitea-token)',
      );
    }
    const result = await this.resolve(SetGiteaToken).execute({ target: this.target(flags), token });
    this.log(gitTokenStoredLine(result.login, result.domain));
  }
}

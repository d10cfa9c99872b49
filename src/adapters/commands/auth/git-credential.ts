import { Args } from '@oclif/core';
import { GitCredential } from '../../../application/login/auth/git-credential.use-case';
import { GIT_CREDENTIAL_OPERATIONS } from '../../../domain/login/git/git-credential';
import { AuthCommand } from '../../login/inbound/cli/auth-command';
import { readGitCredentialRequest } from '../../login/inbound/cli/git-credential-input';

export default class AuthGitCredential extends AuthCommand {
  static override summary = "git's credential helper: the stored git token for the git host (see `auth setup-git`).";
  static override description =
    'Run by git with get, store or erase and the request on standard input (git-credential(1)). get answers with ' +
    'the git token only for the git host of the domain (same scheme, host and port); store and erase leave ' +
    "skiff's cache alone. Without a stored token it says so on stderr and git falls back to its own prompt.";
  static override examples = [
    'printf "protocol=https\\nhost=src.example.com\\n\\n" | <%= config.bin %> auth git-credential get',
  ];
  static override args = {
    operation: Args.string({
      required: true,
      options: [...GIT_CREDENTIAL_OPERATIONS],
      description: 'What git asks: get, store or erase.',
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AuthGitCredential);
    const reply = await this.resolve(GitCredential).execute({
      target: this.target(flags),
      operation: args.operation as (typeof GIT_CREDENTIAL_OPERATIONS)[number],
      request: await readGitCredentialRequest(),
    });
    if (reply !== '') process.stdout.write(reply);
  }
}

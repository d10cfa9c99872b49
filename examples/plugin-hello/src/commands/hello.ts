import { SkiffCommand } from 'skiff-cli/plugin';
import { userInfo } from '../user-info';

export default class Hello extends SkiffCommand {
  static override summary = 'Say who you are signed in as, and ask the platform who it thinks you are.';
  static override description =
    'Prints the identity of the active context (from the id token), then calls the userinfo endpoint of ' +
    'its identity provider with the access token and prints whom the platform sees.';
  static override examples = ['<%= config.bin %> hello', '<%= config.bin %> hello --context prod'];

  async run(): Promise<void> {
    const { flags } = await this.parse(Hello);
    const session = await this.session(flags);
    const where = session.context === undefined ? session.domain : `context ${session.context} (${session.domain})`;
    this.log(`Hello ${session.identity ?? 'unknown'}, signed in on ${where}.`);
    const seen = await userInfo(session);
    this.log(`The platform at ${new URL(session.urls.identityProvider).host} knows you as ${seen.email ?? seen.sub}.`);
  }
}

import { Login } from '../../../application/login/auth/login.use-case';
import { AuthCommand } from '../../login/inbound/cli/auth-command';
import { callbackFlags, deviceFlags } from '../../login/inbound/cli/login-flags';
import { hasNoDisplay } from '../../login/inbound/cli/no-display';

export default class AuthLogin extends AuthCommand {
  static override summary = 'Sign in to the platform: single sign-on in the browser, then the git token.';
  static override description =
    'Resolves the domain, runs `auth sso` (the callback page then sends the browser to the git token page) and ' +
    '`auth git` for the same domain. The URL is always printed; a browser that cannot be opened is not an error.';
  static override examples = [
    '<%= config.bin %> auth login --domain example.com',
    '<%= config.bin %> auth login --context prod --no-browser --port 9876',
    '<%= config.bin %> auth login --device',
  ];
  static override flags = { ...callbackFlags, ...deviceFlags };

  async run(): Promise<void> {
    const { flags } = await this.parse(AuthLogin);
    const result = await this.resolve(Login).execute({
      target: this.target(flags),
      openBrowser: !flags['no-browser'],
      port: flags.port,
      device: flags.device,
      noDisplay: hasNoDisplay(),
    });
    const who = result.sso.email === undefined ? '' : ` as ${result.sso.email}`;
    this.log(`Logged in to ${result.sso.domain}${who}.`);
    this.log(`Git token of ${result.git.login} stored.`);
  }
}

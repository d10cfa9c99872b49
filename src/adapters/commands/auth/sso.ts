import { SsoLogin } from '../../../application/login/auth/sso-login.use-case';
import { AuthCommand } from '../../login/inbound/cli/auth-command';
import { DeviceLogin } from '../../../application/login/auth/device-login.use-case';
import { callbackFlags, deviceFlags } from '../../login/inbound/cli/login-flags';
import { hasNoDisplay } from '../../login/inbound/cli/no-display';
import { loggedInLine } from '../../login/inbound/cli/login-text';

export default class AuthSso extends AuthCommand {
  static override summary = 'Single sign-on only: OpenID Connect with PKCE in the browser.';
  static override description =
    'Prints the authorization URL and tries to open it, waits up to 5 minutes for the browser to come back to ' +
    "http://localhost:<port>/callback, exchanges the code and stores the tokens in the domain's token cache.";
  static override examples = [
    '<%= config.bin %> auth sso',
    '<%= config.bin %> auth sso --domain example.com --no-browser',
    '<%= config.bin %> auth sso --device',
  ];
  static override flags = { ...callbackFlags, ...deviceFlags };

  async run(): Promise<void> {
    const { flags } = await this.parse(AuthSso);
    const openBrowser = !flags['no-browser'];
    const result = flags.device
      ? await this.resolve(DeviceLogin).execute({ target: this.target(flags), openBrowser })
      : await this.resolve(SsoLogin).execute({
          target: this.target(flags),
          openBrowser,
          port: flags.port,
          noDisplay: hasNoDisplay(),
        });
    this.log(loggedInLine(result.domain, result.email));
  }
}

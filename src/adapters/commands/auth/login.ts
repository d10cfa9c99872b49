import { Flags } from '@oclif/core';
import { Login } from '../../../application/login/auth/login.use-case';
import { RobotLogin } from '../../../application/login/auth/robot-login.use-case';
import { AuthCommand } from '../../login/inbound/cli/auth-command';
import { callbackFlags, deviceFlags } from '../../login/inbound/cli/login-flags';
import { hasNoDisplay } from '../../login/inbound/cli/no-display';

/** A robot's sign-in: the client credentials grant instead of a person's. */
const robotFlags = {
  'client-id': Flags.string({
    description:
      'Sign in as this confidential client (a robot) with the client credentials grant; its secret comes from ' +
      '--client-secret-file or SKIFF_CLIENT_SECRET. No browser and no git token step.',
    exclusive: ['device', 'port', 'no-browser'],
  }),
  'client-secret-file': Flags.string({
    description: "The file holding the robot's client secret (the cache keeps its path, never the secret).",
    dependsOn: ['client-id'],
  }),
};

export default class AuthLogin extends AuthCommand {
  static override summary = 'Sign in to the platform: single sign-on in the browser, then the git token.';
  static override description =
    'Resolves the domain, runs `auth sso` (the callback page then sends the browser to the git token page) and ' +
    '`auth git` for the same domain. The URL is always printed; a browser that cannot be opened is not an error. ' +
    'With --client-id, a robot signs in with the client credentials grant instead.';
  static override examples = [
    '<%= config.bin %> auth login --domain example.com',
    '<%= config.bin %> auth login --context prod --no-browser --port 9876',
    '<%= config.bin %> auth login --device',
    '<%= config.bin %> auth login --client-id ci-robot --client-secret-file /run/secrets/ci-robot',
  ];
  static override flags = { ...callbackFlags, ...deviceFlags, ...robotFlags };

  async run(): Promise<void> {
    const { flags } = await this.parse(AuthLogin);
    if (flags['client-id'] !== undefined) {
      const robot = await this.resolve(RobotLogin).execute({
        target: this.target(flags),
        clientId: flags['client-id'],
        clientSecretFile: flags['client-secret-file'],
      });
      this.log(`Logged in to ${robot.domain} as the client ${robot.clientId}.`);
      return;
    }
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

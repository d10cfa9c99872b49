import { Flags } from '@oclif/core';
import { Login } from '../../../application/login/auth/login.use-case';
import { RobotLogin } from '../../../application/login/auth/robot-login.use-case';
import { TokenExchangeLogin } from '../../../application/login/auth/token-exchange-login.use-case';
import { AuthCommand } from '../../login/inbound/cli/auth-command';
import { callbackFlags, deviceFlags } from '../../login/inbound/cli/login-flags';
import { hasNoDisplay } from '../../login/inbound/cli/no-display';
import { gitTokenStoredLine, loggedInLine } from '../../login/inbound/cli/login-text';

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
  'subject-token-file': Flags.string({
    description:
      "Sign in as a robot by exchanging the token in this file (a CI job's OIDC token) for a platform token " +
      '(RFC 8693 token exchange, as the public client skiff-cli, or --client-id). The file is read again for ' +
      'each new token; the cache keeps its path, never the token. No browser and no git token step.',
    exclusive: ['device', 'port', 'no-browser', 'client-secret-file'],
  }),
  'subject-token-type': Flags.string({
    description: "The subject token's type (RFC 8693 §3; default urn:ietf:params:oauth:token-type:jwt).",
    dependsOn: ['subject-token-file'],
  }),
};

export default class AuthLogin extends AuthCommand {
  static override summary = 'Sign in to the platform: single sign-on in the browser, then the git token.';
  static override description =
    'Resolves the domain, runs `auth sso` (the callback page then sends the browser to the git token page) and ' +
    '`auth git` for the same domain. The URL is always printed; a browser that cannot be opened is not an error. ' +
    'With --client-id, a robot signs in with the client credentials grant instead; with --subject-token-file, ' +
    'with a token exchange.';
  static override examples = [
    '<%= config.bin %> auth login --domain example.com',
    '<%= config.bin %> auth login --context prod --no-browser --port 9876',
    '<%= config.bin %> auth login --device',
    '<%= config.bin %> auth login --client-id ci-robot --client-secret-file /run/secrets/ci-robot',
    '<%= config.bin %> auth login --subject-token-file /var/run/secrets/tokens/ci-token',
  ];
  static override flags = { ...callbackFlags, ...deviceFlags, ...robotFlags };

  async run(): Promise<void> {
    const { flags } = await this.parse(AuthLogin);
    if (flags['subject-token-file'] !== undefined) {
      const exchanged = await this.resolve(TokenExchangeLogin).execute({
        target: this.target(flags),
        subjectTokenFile: flags['subject-token-file'],
        subjectTokenType: flags['subject-token-type'],
        clientId: flags['client-id'],
      });
      this.log(`Logged in to ${exchanged.domain} with the subject token of ${exchanged.subjectTokenFile}.`);
      return;
    }
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
    this.log(loggedInLine(result.sso.domain, result.sso.email));
    this.log(gitTokenStoredLine(result.git.login));
  }
}

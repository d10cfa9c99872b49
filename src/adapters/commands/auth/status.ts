import { Status } from '../../../application/login/auth/status.use-case';
import { StatusReport } from '../../../domain/login/auth/status-report';
import { AuthCommand } from '../../login/inbound/cli/auth-command';
import { statusLines } from '../../login/inbound/cli/status-text';

export default class AuthStatus extends AuthCommand {
  static override summary = 'Show the login state of the active domain.';
  static override description =
    'Identity (the e-mail claim), token validity in UTC, whether the next use refreshes it, the domain and ' +
    'whether a git token is stored. Being logged out is not an error. --json gives the same facts; no token is ever shown.';
  static override examples = ['<%= config.bin %> auth status', '<%= config.bin %> auth status --json --context prod'];
  static override enableJsonFlag = true;

  async run(): Promise<StatusReport> {
    const { flags } = await this.parse(AuthStatus);
    const report = await this.resolve(Status).execute(this.target(flags));
    for (const line of statusLines(report)) this.log(line);
    return report;
  }
}

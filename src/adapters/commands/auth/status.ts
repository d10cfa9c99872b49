import { StatusAll } from '../../../application/login/auth/status-all.use-case';
import { Status } from '../../../application/login/auth/status.use-case';
import { DomainStatus } from '../../../domain/login/auth/status-list';
import { StatusReport } from '../../../domain/login/auth/status-report';
import { AuthCommand } from '../../login/inbound/cli/auth-command';
import { statusListLines } from '../../login/inbound/cli/status-list-text';
import { statusLines } from '../../login/inbound/cli/status-text';

export default class AuthStatus extends AuthCommand {
  static override summary = 'Show the login state of every signed-in domain, or of one with --domain.';
  static override description =
    'Identity (the e-mail claim), token validity in UTC, whether the next use refreshes it, the domain and ' +
    'whether a git token is stored. Without --domain, every domain that has a token cache is listed, the active one ' +
    'first and marked. Being logged out is not an error. --json gives the same facts; no token is ever shown.';
  static override examples = [
    '<%= config.bin %> auth status',
    '<%= config.bin %> auth status --domain example.com --json',
  ];
  static override enableJsonFlag = true;

  async run(): Promise<StatusReport | DomainStatus[]> {
    const { flags } = await this.parse(AuthStatus);
    if (!flags.domain) {
      const list = await this.resolve(StatusAll).execute(this.target(flags));
      for (const line of statusListLines(list)) this.log(line);
      return list;
    }
    const report = await this.resolve(Status).execute(this.target(flags));
    for (const line of statusLines(report)) this.log(line);
    return report;
  }
}

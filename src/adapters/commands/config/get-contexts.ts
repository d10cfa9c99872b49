import { ContextList, GetContexts } from '../../../application/login/contexts/get-contexts.use-case';
import { AppCommand } from '../../login/inbound/cli/auth-command';
import { tableLines } from '../../shared/inbound/cli/table';

export default class ConfigGetContexts extends AppCommand {
  static override summary = 'List the contexts.';
  static override description = 'The current one (the --context default) is marked with "*".';
  static override examples = ['<%= config.bin %> config get-contexts', '<%= config.bin %> config get-contexts --json'];
  static override enableJsonFlag = true;

  async run(): Promise<ContextList> {
    await this.parse(ConfigGetContexts);
    const list = await this.resolve(GetContexts).execute();
    const rows = [
      ['CURRENT', 'NAME', 'DOMAIN'],
      ...list.contexts.map((c) => [c.name === list.current ? '*' : '', c.name, c.domain]),
    ];
    for (const line of tableLines(rows)) this.log(line);
    return list;
  }
}

import { ContextList, GetContexts } from '../../../../../application/config/get-contexts.use-case';
import { AppCommand } from '../../auth-command';
import { tableLines } from '../../presenters/table';

export default class ConfigGetContexts extends AppCommand {
  static override summary = 'List the contexts.';
  static override description = 'The current one (the --context default) is marked with "*".';
  static override examples = ['<%= config.bin %> config get-contexts', '<%= config.bin %> config get-contexts --json'];
  static override enableJsonFlag = true;

  async run(): Promise<ContextList> {
    await this.parse(ConfigGetContexts);
    const list = await this.resolve(GetContexts).execute();
    const rows = [['CURRENT', 'NAME', 'DOMAIN'], ...list.contexts.map((c) => [c.name === list.current ? '*' : '', c.name, c.domain])];
    for (const line of tableLines(rows)) this.log(line);
    return list;
  }
}

import { ListBoards } from '../../../application/login/boards/list-boards.use-case';
import { BoardListing } from '../../../domain/login/boards/boards';
import { AuthCommand } from '../../login/inbound/cli/auth-command';
import { boardRows } from '../../login/inbound/cli/login-text';
import { tableLines } from '../../shared/inbound/cli/table';

export default class BoardsList extends AuthCommand {
  static override summary = 'List every board of the board tool with its project.';
  static override description =
    'Exchanges the access token for a board token (or uses the API key stored with `boards set-api-key`), then ' +
    'lists the projects and their boards. Ids are printed exactly as the board tool sent them.';
  static override examples = ['<%= config.bin %> boards list', '<%= config.bin %> boards list --json | jq -r ".[].id"'];
  static override enableJsonFlag = true;

  async run(): Promise<BoardListing[]> {
    const { flags } = await this.parse(BoardsList);
    const boards = await this.resolve(ListBoards).execute(this.target(flags));
    for (const line of tableLines(boardRows(boards))) this.log(line);
    return boards;
  }
}

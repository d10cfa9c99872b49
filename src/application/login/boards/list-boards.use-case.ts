import { inject, injectable } from 'inversify';
import { BoardTokenRejectedError } from '../../../domain/login/boards/board-errors';
import { BoardListing, boardsWithProjects } from '../../../domain/login/boards/boards';
import { AuthScopes } from '../auth/auth-scopes';
import { AuthTarget } from '../auth/auth-target';
import { GetToken } from '../auth/get-token.use-case';
import { ResourceAuthorization } from '../auth/resource-authorization';
import { BOARD_CREDENTIALS, type BoardCredentials } from '../ports/board-credentials.port';
import { BOARD_TOOL, type BoardTool, type ProjectsAndBoards } from '../ports/board-tool.port';

/**
 * `boards list`: with a stored API key, lists with it; otherwise exchanges the
 * access token for a board token (kept per domain), lists, and exchanges once more
 * when the board tool answers 401.
 */
@injectable()
export class ListBoards {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(GetToken) private readonly getToken: GetToken,
    @inject(BOARD_TOOL) private readonly boards: BoardTool,
    @inject(BOARD_CREDENTIALS) private readonly credentials: BoardCredentials,
    @inject(ResourceAuthorization) private readonly resources: ResourceAuthorization,
  ) {}

  async execute(target: AuthTarget): Promise<BoardListing[]> {
    const scope = await this.scopes.scope(target);
    const base = this.scopes.urls(scope, await this.scopes.resolveDomain(scope)).boards;
    const stored = await this.credentials.read(scope.cacheDomain);
    let listing: ProjectsAndBoards;
    if (stored.apiKey !== undefined) {
      listing = await this.boards.listProjects(base, { apiKey: stored.apiKey });
    } else {
      const exchange = async () => {
        const tokens = await this.getToken.tokens(scope);
        const dpop = await this.resources.prover(scope, tokens);
        const boardToken = await this.boards.exchangeToken(base, tokens.accessToken, dpop);
        await this.credentials.write(scope.cacheDomain, { ...stored, boardToken });
        return boardToken;
      };
      const first = stored.boardToken ?? (await exchange());
      listing = await this.boards.listProjects(base, { bearer: first }).catch(async (err: unknown) => {
        if (!(err instanceof BoardTokenRejectedError)) throw err;
        return this.boards.listProjects(base, { bearer: await exchange() });
      });
    }
    return boardsWithProjects(listing.projects, listing.boards);
  }
}

import { BoardExchangeUnavailableError, BoardTokenRejectedError } from '../../../domain/login/boards/board-errors';
import { BoardAuth, BoardTool, ProjectsAndBoards } from '../../../application/login/ports/board-tool.port';

/** A board tool in memory: it issues board tokens and accepts the ones it issued (or one API key). */
export class FakeBoardTool implements BoardTool {
  exchangeAvailable = true;
  readonly accepted = new Set<string>();
  apiKey: string | undefined;
  readonly exchanges: string[] = [];
  readonly listings: BoardAuth[] = [];
  private issued = 0;
  listing: ProjectsAndBoards = {
    projects: [{ id: '1357924680135792468', name: 'Platform' }],
    boards: [{ id: '9007199254740993', name: 'Roadmap', projectId: '1357924680135792468' }],
  };

  /** The DPoP proof of each exchange that carried one (RFC 9449), in order. */
  readonly exchangeProofs: string[] = [];

  async exchangeToken(
    baseUrl: string,
    accessToken: string,
    dpop?: (method: string, url: string) => Promise<string>,
  ): Promise<string> {
    this.exchanges.push(accessToken);
    if (dpop !== undefined)
      this.exchangeProofs.push(await dpop('POST', `${baseUrl}/access-tokens/exchange-using-token`));
    if (!this.exchangeAvailable) throw new BoardExchangeUnavailableError(new URL(baseUrl).host);
    const token = `board-token-${++this.issued}`;
    this.accepted.add(token);
    return token;
  }

  async listProjects(baseUrl: string, auth: BoardAuth): Promise<ProjectsAndBoards> {
    this.listings.push(auth);
    const ok = 'apiKey' in auth ? auth.apiKey === this.apiKey : this.accepted.has(auth.bearer);
    if (!ok) throw new BoardTokenRejectedError(new URL(baseUrl).host, 'apiKey' in auth ? 'API key' : 'board token');
    return this.listing;
  }
}

import { Board, Project } from '../../../domain/login/boards/boards';

export const BOARD_TOOL = Symbol('BoardTool');

/** How a board-tool request authenticates. */
export type BoardAuth = { readonly bearer: string } | { readonly apiKey: string };

export interface ProjectsAndBoards {
  readonly projects: readonly Project[];
  readonly boards: readonly Board[];
}

/**
 * The board tool (Planka-style API). Replies keep ids as strings. A 404 from the
 * exchange is `BoardExchangeUnavailableError`; a 401 from the listing is
 * `BoardTokenRejectedError`.
 */
export interface BoardTool {
  /**
   * POST <base>/access-tokens/exchange-using-token {"token": access token} -> the board token;
   * with `dpop` (a DPoP-bound access token, RFC 9449) the request carries a proof made for it.
   */
  exchangeToken(
    baseUrl: string,
    accessToken: string,
    dpop?: (method: string, url: string) => Promise<string>,
  ): Promise<string>;
  /** GET <base>/projects. */
  listProjects(baseUrl: string, auth: BoardAuth): Promise<ProjectsAndBoards>;
}

import { BoardExchangeUnavailableError, BoardTokenRejectedError } from '../../../../domain/login/boards/board-errors';
import { Board, Project } from '../../../../domain/login/boards/boards';
import { IdentityError, NetworkError } from '../../../../domain/shared/errors';
import { BoardAuth, BoardTool, ProjectsAndBoards } from '../../../../application/login/ports/board-tool.port';
import { HttpClient, HttpReply, hostOf, parseJsonReply } from '../../helpers/http-client';
import { parseJsonLossless } from './lossless-json';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An id as the exact digits or text the board tool sent. */
function id(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

function badReply(url: string, what: string): NetworkError {
  return new NetworkError(`${hostOf(url)} answered ${what} with an unexpected JSON shape`, 'BOARDS.BAD_REPLY');
}

function statusError(reply: HttpReply, url: string, what: string): NetworkError {
  return new NetworkError(
    `the board tool at ${hostOf(url)} answered ${what} with HTTP ${reply.status}`,
    'BOARDS.STATUS',
  );
}

/** The board tool's API (Planka-style): the token exchange and the project listing. */
export class PlankaBoardTool implements BoardTool {
  constructor(private readonly http: HttpClient) {}

  async exchangeToken(
    baseUrl: string,
    accessToken: string,
    dpop?: (method: string, url: string) => Promise<string>,
  ): Promise<string> {
    const url = `${baseUrl}/access-tokens/exchange-using-token`;
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
    // RFC 9449 §7: a bound access token travels with a proof made for this request (the body stays the contract's).
    if (dpop !== undefined) headers.DPoP = await dpop('POST', url);
    const reply = await this.http.send({
      method: 'POST',
      url,
      headers,
      body: JSON.stringify({ token: accessToken }),
    });
    if (reply.status === 404) throw new BoardExchangeUnavailableError(hostOf(url));
    if (reply.status === 401 || reply.status === 403) {
      throw new IdentityError(
        `the board tool at ${hostOf(url)} refused the access token (HTTP ${reply.status}): run \`skiff auth login\``,
        'BOARDS.EXCHANGE_REFUSED',
      );
    }
    if (reply.status < 200 || reply.status >= 300) throw statusError(reply, url, 'the token exchange');
    const body = parseJsonReply(reply, url, 'the token exchange', parseJsonLossless);
    const token = isObject(body) ? id(body.item) : undefined;
    if (token === undefined) throw badReply(url, 'the token exchange');
    return token;
  }

  async listProjects(baseUrl: string, auth: BoardAuth): Promise<ProjectsAndBoards> {
    const url = `${baseUrl}/projects`;
    const headers: Record<string, string> =
      'apiKey' in auth ? { 'X-Api-Key': auth.apiKey } : { Authorization: `Bearer ${auth.bearer}` };
    const reply = await this.http.send({ method: 'GET', url, headers: { ...headers, Accept: 'application/json' } });
    if (reply.status === 401)
      throw new BoardTokenRejectedError(hostOf(url), 'apiKey' in auth ? 'API key' : 'board token');
    if (reply.status < 200 || reply.status >= 300) throw statusError(reply, url, 'the project listing');
    const body = parseJsonReply(reply, url, 'the project listing', parseJsonLossless);
    if (!isObject(body) || !Array.isArray(body.items)) throw badReply(url, 'the project listing');
    const projects: Project[] = body.items.map((item) => {
      const projectId = isObject(item) ? id(item.id) : undefined;
      if (projectId === undefined || !isObject(item)) throw badReply(url, 'the project listing');
      return { id: projectId, name: typeof item.name === 'string' ? item.name : '' };
    });
    const included = isObject(body.included) ? body.included.boards : undefined;
    const boards: Board[] = (Array.isArray(included) ? included : []).map((item) => {
      const boardId = isObject(item) ? id(item.id) : undefined;
      const projectId = isObject(item) ? id(item.projectId) : undefined;
      if (boardId === undefined || projectId === undefined || !isObject(item))
        throw badReply(url, 'the project listing');
      return { id: boardId, name: typeof item.name === 'string' ? item.name : '', projectId };
    });
    return { projects, boards };
  }
}

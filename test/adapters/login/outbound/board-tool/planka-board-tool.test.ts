import {
  BoardExchangeUnavailableError,
  BoardTokenRejectedError,
} from '../../../../../src/domain/login/boards/board-errors';
import { IdentityError } from '../../../../../src/domain/shared/errors';
import { PlankaBoardTool } from '../../../../../src/adapters/login/outbound/board-tool/planka-board-tool';
import { HttpClient } from '../../../../../src/adapters/login/helpers/http-client';
import { HttpStub } from '../../../../support/http-stub';

const http = new HttpClient();

describe('the Planka adapter', () => {
  let stub: HttpStub;
  const tool = new PlankaBoardTool(http);
  beforeEach(async () => (stub = await HttpStub.start()));
  afterEach(() => stub.close());

  it('exchanges with POST {"token": ...} and reads "item"', async () => {
    stub.on('POST /api/access-tokens/exchange-using-token', { body: { item: 'board-1' } });
    await expect(tool.exchangeToken(`${stub.url}/api`, 'access-1')).resolves.toBe('board-1');
    expect(JSON.parse(stub.requests[0].body)).toEqual({ token: 'access-1' });
    expect(stub.requests[0].headers['content-type']).toBe('application/json');
  });

  it('404 on the exchange: BoardExchangeUnavailableError; 401: identity error', async () => {
    await expect(tool.exchangeToken(`${stub.url}/api`, 'a')).rejects.toBeInstanceOf(BoardExchangeUnavailableError);
    stub.on('POST /api/access-tokens/exchange-using-token', { status: 401, body: {} });
    await expect(tool.exchangeToken(`${stub.url}/api`, 'a')).rejects.toBeInstanceOf(IdentityError);
  });

  it('lists with the bearer token or the API key, ids exact even when sent as numbers beyond 2^53', async () => {
    const body =
      '{"items":[{"id":1357924680135792468,"name":"Platform"}],' +
      '"included":{"boards":[{"id":1357924680135792469,"name":"Roadmap","projectId":"1357924680135792468"},' +
      '{"id":"42","name":"Small","projectId":1357924680135792468}]}}';
    stub.on('GET /api/projects', { body, contentType: 'application/json' });
    await expect(tool.listProjects(`${stub.url}/api`, { bearer: 'b1' })).resolves.toEqual({
      projects: [{ id: '1357924680135792468', name: 'Platform' }],
      boards: [
        { id: '1357924680135792469', name: 'Roadmap', projectId: '1357924680135792468' },
        { id: '42', name: 'Small', projectId: '1357924680135792468' },
      ],
    });
    expect(stub.requests[0].headers.authorization).toBe('Bearer b1');
    await tool.listProjects(`${stub.url}/api`, { apiKey: 'k1' });
    expect(stub.requests[1].headers['x-api-key']).toBe('k1');
    expect(stub.requests[1].headers.authorization).toBeUndefined();
  });

  it('401 on the listing: BoardTokenRejectedError; 500 and garbage: network errors naming the host', async () => {
    stub.on('GET /api/projects', { status: 401, body: {} });
    await expect(tool.listProjects(`${stub.url}/api`, { bearer: 'b' })).rejects.toBeInstanceOf(BoardTokenRejectedError);
    stub.on('GET /api/projects', { status: 500, body: 'oops' });
    await expect(tool.listProjects(`${stub.url}/api`, { bearer: 'b' })).rejects.toThrow(
      new RegExp(`127.0.0.1:${stub.port}.*HTTP 500`),
    );
    stub.on('GET /api/projects', { body: { items: 'no' } });
    await expect(tool.listProjects(`${stub.url}/api`, { bearer: 'b' })).rejects.toThrow(/unexpected JSON shape/);
  });
});

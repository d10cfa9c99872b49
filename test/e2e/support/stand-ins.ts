import { createServer } from 'node:net';
import { HttpStub } from '../../support/http-stub';

export const GOOD_GIT_TOKEN = 'gitea-pat-0123456789abcdef';
/** Beyond 2^53: a JSON number with these digits loses them in JSON.parse. */
export const BIG_BOARD_ID = '1357924680135792469';
export const BIG_PROJECT_ID = '1357924680135792468';

/** The Gitea API stand-in: /api/v1/user knows one token. */
export async function giteaStandIn(): Promise<HttpStub> {
  const stub = await HttpStub.start();
  stub.on('GET /api/v1/user', (req) =>
    req.headers.authorization === `token ${GOOD_GIT_TOKEN}`
      ? { body: { id: 7, login: 'alice' } }
      : { status: 401, body: { message: 'token is required' } },
  );
  return stub;
}

/** The Planka API stand-in: the token exchange, then projects with a board id beyond 2^53 sent as a bare number. */
export async function plankaStandIn(): Promise<HttpStub> {
  const stub = await HttpStub.start();
  const issued = new Set<string>();
  stub.on('POST /api/access-tokens/exchange-using-token', (req) => {
    const token = (JSON.parse(req.body || '{}') as { token?: string }).token;
    if (!token) return { status: 400, body: { message: 'token required' } };
    const boardToken = `board-${issued.size + 1}`;
    issued.add(boardToken);
    return { body: { item: boardToken } };
  });
  stub.on('GET /api/projects', (req) => {
    const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!issued.has(bearer)) return { status: 401, body: { message: 'unauthorized' } };
    return {
      contentType: 'application/json',
      body:
        `{"items":[{"id":"${BIG_PROJECT_ID}","name":"Platform"}],` +
        `"included":{"boards":[{"id":${BIG_BOARD_ID},"name":"Roadmap","projectId":"${BIG_PROJECT_ID}"}]}}`,
    };
  });
  return stub;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

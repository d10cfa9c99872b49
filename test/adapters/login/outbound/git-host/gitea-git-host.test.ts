import { IdentityError, NetworkError } from '../../../../../src/domain/shared/errors';
import { GiteaGitHost } from '../../../../../src/adapters/login/outbound/git-host/gitea-git-host';
import { HttpClient } from '../../../../../src/adapters/login/helpers/http-client';
import { HttpStub } from '../../../../support/http-stub';

const http = new HttpClient();

describe('the Gitea adapter', () => {
  let stub: HttpStub;
  beforeEach(async () => (stub = await HttpStub.start()));
  afterEach(() => stub.close());

  it('asks /api/v1/user with "Authorization: token <token>" and returns the login', async () => {
    stub.on('GET /api/v1/user', { body: { login: 'alice', id: 1 } });
    await expect(new GiteaGitHost(http).currentUser(stub.url, 'git-1')).resolves.toEqual({ login: 'alice' });
    expect(stub.requests[0].headers.authorization).toBe('token git-1');
  });

  it('no login in the reply: none returned (shown as unknown)', async () => {
    stub.on('GET /api/v1/user', { body: { id: 1 } });
    await expect(new GiteaGitHost(http).currentUser(stub.url, 'git-1')).resolves.toEqual({});
  });

  it.each([401, 403, 500])(
    'HTTP %i: an identity error "invalid token" stating the status, without the token',
    async (status) => {
      stub.on('GET /api/v1/user', { status, body: { message: 'token is invalid' } });
      const err = (await new GiteaGitHost(http).currentUser(stub.url, 'git-secret').catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(IdentityError);
      expect(err.message).toMatch(
        new RegExp(`invalid token: the git host 127.0.0.1:${stub.port} answered HTTP ${status}`),
      );
      expect(err.message).not.toContain('git-secret');
    },
  );

  it('HTML with 200 (a wrong URL) is a network error, not a verified token', async () => {
    stub.on('GET /api/v1/user', { body: '<!DOCTYPE html><html></html>', contentType: 'text/html' });
    await expect(new GiteaGitHost(http).currentUser(stub.url, 'git-1')).rejects.toBeInstanceOf(NetworkError);
  });
});

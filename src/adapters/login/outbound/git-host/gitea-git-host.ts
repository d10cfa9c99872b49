import { gitTokenRejected } from '../../../../domain/login/auth/auth-errors';
import { GitHost } from '../../../../application/login/ports/git-host.port';
import { HttpClient, hostOf, parseJsonReply } from '../../helpers/http-client';

/** The Gitea API: the token's owner, with `Authorization: token <token>`. */
export class GiteaGitHost implements GitHost {
  constructor(private readonly http: HttpClient) {}

  async currentUser(baseUrl: string, token: string): Promise<{ login?: string }> {
    const url = `${baseUrl}/api/v1/user`;
    const reply = await this.http.send({
      method: 'GET',
      url,
      headers: { Authorization: `token ${token}`, Accept: 'application/json' },
    });
    if (reply.status < 200 || reply.status >= 300) throw gitTokenRejected(reply.status, hostOf(url));
    const user = parseJsonReply(reply, url, 'the user request');
    const login = typeof user === 'object' && user !== null ? (user as Record<string, unknown>).login : undefined;
    return typeof login === 'string' ? { login } : {};
  }
}

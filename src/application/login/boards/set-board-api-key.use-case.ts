import { inject, injectable } from 'inversify';
import { IdentityError } from '../../../domain/shared/errors';
import { AuthScopes } from '../auth/auth-scopes';
import { AuthTarget } from '../auth/auth-target';
import { BOARD_CREDENTIALS, type BoardCredentials } from '../ports/board-credentials.port';

/** `boards set-api-key`: a Planka API key for deployments without the token exchange. */
@injectable()
export class SetBoardApiKey {
  constructor(
    @inject(AuthScopes) private readonly scopes: AuthScopes,
    @inject(BOARD_CREDENTIALS) private readonly credentials: BoardCredentials,
  ) {}

  async execute(target: AuthTarget, apiKey: string): Promise<void> {
    const key = apiKey.trim();
    if (key === '')
      throw new IdentityError(
        "no API key provided: expected the board tool's API key as the argument or on standard input",
        'BOARDS.NO_API_KEY',
      );
    const scope = await this.scopes.scope(target);
    await this.credentials.write(scope.cacheDomain, { apiKey: key });
  }
}

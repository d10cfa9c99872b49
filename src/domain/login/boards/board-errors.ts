import { ConfigurationError, IdentityError } from '../../shared/errors';

/** The deployment has no token exchange endpoint (upstream Planka has none). */
export class BoardExchangeUnavailableError extends ConfigurationError {
  constructor(host: string) {
    super(
      `the board tool at ${host} has no token exchange endpoint (HTTP 404): create an API key in the board tool and store it with \`skiff boards set-api-key\``,
      'BOARDS.NO_EXCHANGE',
    );
  }
}

/** The board tool refused the credential we sent (HTTP 401). */
export class BoardTokenRejectedError extends IdentityError {
  constructor(host: string, what: 'board token' | 'API key') {
    super(
      what === 'API key'
        ? `the board tool at ${host} rejected the stored API key (HTTP 401): store a valid one with \`skiff boards set-api-key\``
        : `the board tool at ${host} rejected the exchanged token (HTTP 401): run \`skiff auth login\``,
      'BOARDS.REJECTED',
    );
  }
}

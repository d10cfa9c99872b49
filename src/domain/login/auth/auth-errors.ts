import { ConfigurationError, IdentityError } from '../../shared/errors';

/**
 * The login flow's errors (docs/login-contract.md, "Errors and exit codes"). Each
 * names what to do next; none carries a token.
 */
export const LOGIN_COMMAND = 'skiff auth login';

export function notLoggedIn(detail?: string): IdentityError {
  const why = detail === undefined ? '' : ` (${detail})`;
  return new IdentityError(`not logged in${why}: run \`${LOGIN_COMMAND}\``, 'AUTH.NOT_LOGGED_IN');
}

export function sessionExpired(): IdentityError {
  return new IdentityError(`session expired: run \`${LOGIN_COMMAND}\``, 'AUTH.SESSION_EXPIRED');
}

export function loginTimedOut(): IdentityError {
  return new IdentityError(
    `login timed out after 5 minutes without a callback from the browser: run \`${LOGIN_COMMAND}\` again`,
    'AUTH.CALLBACK_TIMEOUT',
  );
}

/** Empty token input; `whatToDo` says where the token was expected. */
export function noGitToken(whatToDo = 'paste the git token created on the page above'): IdentityError {
  return new IdentityError(`no token provided: ${whatToDo}`, 'AUTH.GIT_TOKEN_EMPTY');
}

export function gitTokenRejected(status: number, host: string): IdentityError {
  return new IdentityError(
    `invalid token: the git host ${host} answered HTTP ${status}; create a new token with all scopes and run \`skiff auth git\``,
    'AUTH.GIT_TOKEN_REJECTED',
  );
}

export function noGitTokenStored(): IdentityError {
  return new IdentityError(
    'no git token stored: run `skiff auth git` or `skiff auth set-gitea-token <token>`',
    'AUTH.GIT_TOKEN_MISSING',
  );
}

export function domainUndetermined(): ConfigurationError {
  return new ConfigurationError(
    'cannot determine the domain: pass --domain <domain> or run `skiff config set --host <domain>`',
    'AUTH.NO_DOMAIN',
  );
}

/** The cache file of a domain exists but cannot be read, parsed or written; names the path. */
export class TokenCacheError extends ConfigurationError {
  constructor(
    readonly path: string,
    detail: string,
    code: 'AUTH.CACHE_UNREADABLE' | 'AUTH.CACHE_UNWRITABLE' | 'AUTH.KEYRING_UNAVAILABLE',
  ) {
    super(`token cache ${path}: ${detail}`, code);
  }
}

/**
 * A cache that cannot be used where a token is needed: "not logged in" naming the problem,
 * except a record whose keyring cannot be reached, which signing in again would not mend:
 * that is its own line (exit 3), saying to unlock the keyring or switch to the file.
 */
export function cacheUnusable(problem: TokenCacheError): ConfigurationError | IdentityError {
  return problem.code === 'AUTH.KEYRING_UNAVAILABLE' ? problem : notLoggedIn(problem.message);
}

import { IdentityError } from '../../shared/errors';
import { IssuerExpectation, judgeIssuer } from './callback-issuer';

/** Limits (docs/login-contract.md): one read of at most 4096 bytes; the path the redirect URI names. */
export const CALLBACK_READ_LIMIT = 4096;
export const CALLBACK_PATH = '/callback';
/** Limits (docs/login-contract.md): the callback is awaited for 300 seconds. */
export const CALLBACK_WAIT_MS = 300_000;

/** What the listener does with one request it read. */
export type RequestVerdict =
  | { readonly kind: 'callback'; readonly target: string }
  | { readonly kind: 'ignore'; readonly status: 400 | 404 | 405; readonly reason: string };

/**
 * Sorts a request head (the bytes read) into the one SSO step 9 judges,
 * `GET /callback...`, and everything else (a browser's preconnect or favicon request,
 * a stray client), which is answered with an error status and does not end the wait.
 */
export function classifyRequest(head: string): RequestVerdict {
  const end = head.search(/\r?\n/);
  if (end < 0) return { kind: 'ignore', status: 400, reason: 'no complete request line' };
  const parts = head.slice(0, end).split(' ');
  if (parts.length !== 3 || !/^HTTP\/\d\.\d$/.test(parts[2]) || parts[1] === '') {
    return { kind: 'ignore', status: 400, reason: 'not an HTTP request line' };
  }
  const [method, target] = parts;
  const path = target.split('?')[0];
  if (path !== CALLBACK_PATH) return { kind: 'ignore', status: 404, reason: `path ${path.slice(0, 64)}` };
  if (method !== 'GET') return { kind: 'ignore', status: 405, reason: `method ${method.slice(0, 16)}` };
  return { kind: 'callback', target };
}

export interface CallbackParameters {
  readonly code: string;
  readonly state: string;
}

function fail(message: string, code: string): never {
  throw new IdentityError(`${message}: run \`skiff auth login\` again`, code);
}

/** An OAuth error code safe to repeat in a message (RFC 6749 §4.1.2.1 uses plain ASCII words). */
function providerError(params: Map<string, string>): string {
  const error = params.get('error');
  return error !== undefined && /^[A-Za-z0-9_.-]{1,64}$/.test(error)
    ? ` (the identity provider answered error=${error})`
    : '';
}

/**
 * SSO steps 8-9 (docs/login-contract.md): the query of the callback's request target,
 * `code` and `state` taken as they stand (not percent-decoded). A missing query, code
 * or state is an identity error naming the missing part; a state other than the one
 * generated is an identity error mentioning possible CSRF. Then, when `issuer` is given
 * (every browser sign-in gives the discovered one), the `iss` parameter of RFC 9207
 * (callback-issuer.ts): the code and state rules above are unchanged and judged first.
 */
export function judgeCallback(target: string, expectedState: string, issuer?: IssuerExpectation): CallbackParameters {
  if (target === '') fail('the callback request was empty', 'AUTH.CALLBACK_EMPTY');
  const mark = target.indexOf('?');
  if (mark < 0 || mark === target.length - 1)
    fail('the callback has no query string (no code, no state)', 'AUTH.CALLBACK_NO_QUERY');
  const params = new Map<string, string>();
  for (const pair of target.slice(mark + 1).split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (!params.has(key)) params.set(key, eq < 0 ? '' : pair.slice(eq + 1));
  }
  const code = params.get('code');
  const state = params.get('state');
  if (!code) fail(`the callback has no code${providerError(params)}`, 'AUTH.CALLBACK_NO_CODE');
  if (!state) fail('the callback has no state', 'AUTH.CALLBACK_NO_STATE');
  if (state !== expectedState) {
    fail(
      'state mismatch in the callback: possible CSRF attack, the sign-in was refused',
      'AUTH.CALLBACK_STATE_MISMATCH',
    );
  }
  if (issuer !== undefined) judgeIssuer(target.slice(mark + 1), issuer);
  return { code, state };
}

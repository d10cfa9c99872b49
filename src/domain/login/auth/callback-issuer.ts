import { IdentityError } from '../../shared/errors';
import { escapedControls } from '../../shared/quoted';

/**
 * What the discovery document says about `iss` in authorization responses (RFC 9207 §3):
 * the issuer the request was sent to, and whether the provider promises the parameter
 * (`authorization_response_iss_parameter_supported: true`).
 */
export interface IssuerExpectation {
  readonly issuer: string;
  readonly advertised: boolean;
}

/** The query's first value of `name` as it stands (the seed's rule for `code` and `state`), or undefined. */
export function firstParameter(query: string, name: string): string | undefined {
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (key === name) return eq < 0 ? '' : pair.slice(eq + 1);
  }
  return undefined;
}

/** application/x-www-form-urlencoded decoding (RFC 9207 §2.4 compares the decoded value); undefined when malformed. */
function formDecoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function mixUp(what: string, issuer: string, code: string): never {
  throw new IdentityError(
    `${what}, not the issuer ${escapedControls(issuer)} this sign-in was sent to: possible mix-up attack ` +
      '(RFC 9207), the sign-in was refused: run `skiff auth login` again',
    code,
  );
}

/**
 * RFC 9207 §2.4 (docs/login-contract.md, SSO step 9): an `iss` in the callback, decoded,
 * must be exactly the discovered issuer; a callback without one is refused only when the
 * provider advertises the parameter. The value received is never repeated (it could be
 * anything a forger typed); the message names the issuer expected.
 */
export function judgeIssuer(query: string, expected: IssuerExpectation): void {
  const raw = firstParameter(query, 'iss');
  if (raw === undefined) {
    if (expected.advertised) mixUp('the callback has no iss parameter', expected.issuer, 'AUTH.CALLBACK_NO_ISSUER');
    return;
  }
  if (formDecoded(raw) !== expected.issuer)
    mixUp('the callback names another issuer (iss)', expected.issuer, 'AUTH.CALLBACK_ISSUER_MISMATCH');
}

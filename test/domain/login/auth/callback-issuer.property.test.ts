import fc from 'fast-check';
import { judgeIssuer } from '../../../../src/domain/login/auth/callback-issuer';
import { judgeCallback } from '../../../../src/domain/login/auth/callback-request';
import { IdentityError } from '../../../../src/domain/shared/errors';
import { PROPERTY_BUDGET } from '../../../support/property';

/**
 * The `iss` of a callback (RFC 9207 §2.4, docs/login-contract.md SSO step 9) is whatever
 * reached 127.0.0.1: judged, never trusted, never repeated. Accepted exactly when its
 * form-decoded value is the discovered issuer; absent accepted only when not advertised.
 */

const unit = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom('%', '+', '=', '&', '/', ':', '\r', '\n', '\0', '%2', '%ZZ', '%C3') },
);
const text = fc.string({ unit, maxLength: 40 });
const issuer = fc.oneof(
  fc.constantFrom('https://auth.example.com', 'http://127.0.0.1:5556', 'https://auth.example.com/realms/a b'),
  text.filter((s) => s !== ''),
);
/** How a provider (or a forger) writes an issuer into the query. */
const written = (iss: string) =>
  fc.constantFrom(
    encodeURIComponent(iss),
    encodeURIComponent(iss).replace(/%20/g, '+'),
    iss.replace(/&/g, '%26'),
    encodeURIComponent(iss).toLowerCase(),
    `${encodeURIComponent(iss)}%2F`,
  );

function outcome(query: string, expected: string, advertised: boolean): 'ok' | string {
  try {
    judgeIssuer(query, { issuer: expected, advertised });
    return 'ok';
  } catch (err) {
    if (!(err instanceof IdentityError)) throw err;
    return err.code;
  }
}

function decodes(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

describe('judgeIssuer on generated queries', () => {
  it('any query: accepted exactly when the first iss decodes to the issuer (or there is none and it is not advertised)', () => {
    fc.assert(
      fc.property(
        issuer,
        fc.boolean(),
        fc.array(fc.tuple(fc.constantFrom('iss', 'code', 'state', 'ISS', 'iss '), text), { maxLength: 5 }),
        fc.option(issuer.chain(written)),
        (expected, advertised, pairs, iss) => {
          const all = iss === null ? pairs : [...pairs, ['iss', iss] as [string, string]];
          const query = all.map(([k, v]) => `${k}=${v.replace(/&/g, '')}`).join('&');
          const first = query
            .split('&')
            .map((p) => [p.slice(0, p.indexOf('=') < 0 ? p.length : p.indexOf('=')), p.slice(p.indexOf('=') + 1)])
            .find(([k]) => k === 'iss');
          const result = outcome(query, expected, advertised);
          if (first === undefined) expect(result).toBe(advertised ? 'AUTH.CALLBACK_NO_ISSUER' : 'ok');
          else expect(result).toBe(decodes(first[1]) === expected ? 'ok' : 'AUTH.CALLBACK_ISSUER_MISMATCH');
        },
      ),
      PROPERTY_BUDGET,
    );
  });

  it('a refusal is one of the two documented lines, whatever the callback carried (so nothing of it is repeated)', () => {
    const expected = 'https://auth.example.com';
    const tail = `, not the issuer ${expected} this sign-in was sent to: possible mix-up attack (RFC 9207), the sign-in was refused: run \`skiff auth login\` again`;
    const documented = [`the callback has no iss parameter${tail}`, `the callback names another issuer (iss)${tail}`];
    fc.assert(
      fc.property(
        text.map((s) => s.replace(/&/g, '')),
        fc.boolean(),
        (forged, advertised) => {
          try {
            judgeCallback(`/callback?code=c&state=s&iss=${forged}`, 's', { issuer: expected, advertised });
          } catch (err) {
            expect(err).toBeInstanceOf(IdentityError);
            expect(documented).toContain((err as Error).message);
          }
        },
      ),
      PROPERTY_BUDGET,
    );
  });
});

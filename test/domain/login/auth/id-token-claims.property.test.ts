import fc from 'fast-check';
import {
  ID_TOKEN_LEEWAY_S,
  IdTokenExpectations,
  judgeAlgorithm,
  judgeIdTokenClaims,
} from '../../../../src/domain/login/auth/id-token-claims';
import { IdentityError } from '../../../../src/domain/shared/errors';
import { PROPERTY_BUDGET } from '../../../support/property';

/** An id_token's payload is the provider's bytes: any JSON at all must be judged, never crash the judge. */

const NOW_S = 1_900_000_000;
const base: IdTokenExpectations = {
  issuer: 'https://auth.example.com',
  clientId: 'skiff-cli',
  now: new Date(NOW_S * 1000),
};

/** Refused the documented way, or accepted: nothing else may come out. */
function judge(payload: unknown, expect_: IdTokenExpectations = base) {
  try {
    return judgeIdTokenClaims(payload, expect_);
  } catch (err) {
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as IdentityError).code).toBe('AUTH.ID_TOKEN_REFUSED');
    expect((err as Error).message).not.toMatch(/[\r\n]/);
    return undefined;
  }
}

/** Values near the expected ones, so that the generator reaches the deeper rules too. */
const near = <T>(right: T) => fc.oneof(fc.constant(right), fc.jsonValue());
const time = fc.oneof(
  fc.integer({ min: NOW_S - 1000, max: NOW_S + 1000 }),
  fc.double(),
  fc.constant(undefined),
  fc.jsonValue(),
);
const payload = fc.record(
  {
    iss: near(base.issuer),
    aud: fc.oneof(near(base.clientId), fc.array(near(base.clientId))),
    azp: near(base.clientId),
    sub: fc.oneof(fc.string(), fc.jsonValue()),
    exp: time,
    iat: time,
    nbf: time,
    nonce: near('n0nce'),
    email: fc.oneof(fc.string(), fc.jsonValue()),
  },
  { requiredKeys: [] },
);

describe('judgeIdTokenClaims on generated payloads', () => {
  it('any JSON value: accepted or refused with the one identity error, never another exception', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        judge(value);
      }),
      PROPERTY_BUDGET,
    );
  });

  it('whatever it accepts keeps every rule: issuer, audience, azp, subject, times, nonce, subject of a refresh', () => {
    fc.assert(
      fc.property(
        payload,
        fc.constantFrom(undefined, 'n0nce'),
        fc.constantFrom(undefined, 'alice'),
        (p, nonce, subject) => {
          const expect_ = {
            ...base,
            ...(nonce === undefined ? {} : { nonce }),
            ...(subject === undefined ? {} : { subject }),
          };
          const claims = judge(p, expect_);
          if (claims === undefined) return;
          const c = p as Record<string, unknown>;
          expect(c.iss).toBe(base.issuer);
          expect(typeof c.aud === 'string' ? [c.aud] : c.aud).toContain(base.clientId);
          if (c.azp !== undefined) expect(c.azp).toBe(base.clientId);
          expect(typeof c.sub === 'string' && c.sub !== '').toBe(true);
          expect(claims.subject).toBe(c.sub);
          expect(NOW_S).toBeLessThanOrEqual((c.exp as number) + ID_TOKEN_LEEWAY_S);
          expect(c.iat as number).toBeLessThanOrEqual(NOW_S + ID_TOKEN_LEEWAY_S);
          if (c.nbf !== undefined) expect(c.nbf as number).toBeLessThanOrEqual(NOW_S + ID_TOKEN_LEEWAY_S);
          if (nonce !== undefined) expect(c.nonce).toBe(nonce);
          if (subject !== undefined) expect(c.sub).toBe(subject);
          expect(claims.email).toBe(typeof c.email === 'string' ? c.email : undefined);
        },
      ),
      PROPERTY_BUDGET,
    );
  });

  it('a well-formed payload with any subject and e-mail is accepted with both', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string(),
        fc.integer({ min: -ID_TOKEN_LEEWAY_S, max: 86_400 }),
        (sub, email, ttl) => {
          const claims = judge({
            iss: base.issuer,
            aud: [base.clientId, 'other'],
            sub,
            email,
            iat: NOW_S,
            exp: NOW_S + ttl,
          });
          expect(claims).toEqual({ subject: sub, email });
        },
      ),
      PROPERTY_BUDGET,
    );
  });

  it('judgeAlgorithm: any header alg is accepted only from the asymmetric list', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.string()), (alg) => {
        let accepted = true;
        try {
          judgeAlgorithm(alg);
        } catch (err) {
          expect(err).toBeInstanceOf(IdentityError);
          accepted = false;
        }
        expect(accepted).toBe(typeof alg === 'string' && /^(RS|PS|ES)(256|384|512)$|^EdDSA$/.test(alg));
      }),
      PROPERTY_BUDGET,
    );
  });
});

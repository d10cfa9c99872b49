import fc from 'fast-check';
import { redact } from '../../../../src/adapters/login/helpers/http-client';
import { formEncode, percentEncode } from '../../../../src/domain/login/auth/percent-encoding';
import { PROPERTY_BUDGET } from '../../../support/property';

/**
 * redact runs on a remote's error body with the secrets skiff sent: any secret (a refresh
 * token is the provider's own JSON string, lone surrogates included) and any body.
 */

// Any code point, and lone surrogates (JSON's "\ud800" is a valid string).
const unit = fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.constantFrom('\ud800', '\udfff'));
const secret = fc.string({ unit, minLength: 4, maxLength: 40 });
const text = fc.string({ unit, maxLength: 40 });

// [form, encode, characters at each edge that may depend on the bytes around it]
const forms: Array<[string, (s: string) => string, number]> = [
  ['raw', (s) => s, 0],
  ['RFC 3986', (s) => percentEncode(s), 0],
  ['form-encoded', (s) => formEncode([['', s]]).slice(1), 0],
  ['JSON-escaped', (s) => JSON.stringify(s).slice(1, -1), 0],
  [
    'base64 in Basic credentials',
    (s) =>
      Buffer.from(`ci:${percentEncode(s)}`)
        .toString('base64')
        .slice(4),
    3,
  ],
  ['base64url', (s) => Buffer.from(s).toString('base64url'), 3],
];

describe('redact on generated secrets and bodies', () => {
  it.each(forms)('a secret echoed %s never comes back whole, and redact never throws', (_, encode, edge) => {
    fc.assert(
      fc.property(secret, text, text, (s, before, after) => {
        const echoed = encode(s);
        const out = redact(`${before}${echoed}${after}`, [s]);
        const core = echoed.slice(edge, echoed.length - edge);
        if (core.length >= 4) expect(out).not.toContain(core);
      }),
      PROPERTY_BUDGET,
    );
  });

  it('a body that holds none of the secrets comes back unchanged', () => {
    fc.assert(
      fc.property(
        fc.array(secret, { maxLength: 3 }),
        fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
        (secrets, body) => {
          // Bodies of one character class that no secret's form of 4+ characters can match.
          const plain = body.replace(/[^ ]/g, ' ');
          expect(redact(plain, secrets)).toBe(plain);
        },
      ),
      PROPERTY_BUDGET,
    );
  });
});

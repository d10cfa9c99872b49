import fc from 'fast-check';
import { decodeRecord, encodeRecord } from '../../../../../src/adapters/login/outbound/token-cache/token-record';
import { AuthTokens } from '../../../../../src/domain/login/auth/auth-tokens';
import { PROPERTY_BUDGET } from '../../../../support/property';

/** The cache file is read back from disk, where anything may have been written: any text is a record or an Error. */

const FIELDS = [
  'access_token',
  'refresh_token',
  'expires_at',
  'id_token',
  'domain',
  'gitea_token',
  'client_id',
  'client_secret_file',
];
/** Keys an earlier skiff wrote: read and ignored, never written back. */
const DROPPED = ['scope', 'sign_in'];
const value = fc.oneof(
  fc.string(),
  fc.constantFrom(
    'browser',
    'device',
    'client-credentials',
    '2030-01-01T00:00:00Z',
    '2030-01-01 00:00:00.5+02:00',
    '9999-12-31T23:59:59Z',
  ),
  fc.jsonValue(),
);
const recordish = fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS, ...DROPPED), fc.string()), value);

/** Files with the required fields, so that most are records and the optional ones are judged too. */
const fileLike = fc
  .tuple(
    fc.record({
      access_token: fc.string(),
      refresh_token: fc.string(),
      expires_at: fc.oneof(
        fc
          .date({ min: new Date(0), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
          .map((d) => d.toISOString()),
        value,
      ),
      domain: fc.string(),
    }),
    fc.dictionary(fc.constantFrom(...FIELDS.slice(3), ...DROPPED), fc.oneof(value, fc.constant(null))),
  )
  .map(([required, optional]) => ({ ...optional, ...required }));

function decoded(text: string): AuthTokens | undefined {
  try {
    return decodeRecord(text);
  } catch (err) {
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).not.toBe('');
    return undefined;
  }
}

describe('decodeRecord on generated files', () => {
  it('any text or JSON: a record that encodes and decodes to itself, or an Error with a message', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          recordish.map((r) => JSON.stringify(r)),
          fileLike.map((r) => JSON.stringify(r)),
        ),
        (text) => {
          const tokens = decoded(text);
          if (tokens === undefined) return;
          expect(Number.isNaN(tokens.expiresAt.getTime())).toBe(false);
          expect(decodeRecord(encodeRecord(tokens))).toEqual(tokens);
          // Only the fields of the file come out, and no undefined ones.
          const written = JSON.parse(encodeRecord(tokens)) as Record<string, unknown>;
          expect(Object.keys(written).every((k) => FIELDS.includes(k))).toBe(true);
        },
      ),
      PROPERTY_BUDGET,
    );
  });
});

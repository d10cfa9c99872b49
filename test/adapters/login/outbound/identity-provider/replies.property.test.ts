import fc from 'fast-check';
import {
  pushedAuthorizationReply,
  tokenReply,
} from '../../../../../src/adapters/login/outbound/identity-provider/oidc-identity-provider';
import {
  deviceCodeLifetime,
  firstPollInterval,
  MAX_DEVICE_CODE_LIFETIME_S,
  MAX_POLL_INTERVAL_S,
  MIN_POLL_INTERVAL_S,
  nextPollInterval,
} from '../../../../../src/domain/login/auth/device-grant';
import { decodeRecord, encodeRecord } from '../../../../../src/adapters/login/outbound/token-cache/token-record';
import { AuthTokens } from '../../../../../src/domain/login/auth/auth-tokens';
import { NetworkError } from '../../../../../src/domain/shared/errors';
import { PROPERTY_BUDGET } from '../../../../support/property';

/** What a token endpoint and a device authorization endpoint send is the provider's bytes: judged, never trusted. */

const stringish = fc.oneof(fc.string(), fc.jsonValue(), fc.constant(null), fc.constant(undefined));
const number = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(NaN, Infinity, -Infinity, 2 ** 31, 3_000_000));
const reply = fc.record(
  {
    access_token: stringish,
    refresh_token: stringish,
    id_token: stringish,
    scope: stringish,
    token_type: stringish,
    expires_in: fc.oneof(number, fc.string(), fc.stringMatching(/^\d{1,20}$/), fc.jsonValue()),
  },
  { requiredKeys: [] },
);

describe('tokenReply on generated replies', () => {
  it('any JSON body or reply-shaped object: a checked TokenResponse, or the one network error', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), reply), (body) => {
        let parsed;
        try {
          parsed = tokenReply(body, 'auth.example.com');
        } catch (err) {
          expect(err).toBeInstanceOf(NetworkError);
          expect((err as NetworkError).code).toBe('OIDC.BAD_TOKEN_REPLY');
          return;
        }
        const doc = body as Record<string, unknown>;
        expect(typeof parsed.accessToken === 'string' && parsed.accessToken !== '').toBe(true);
        expect(parsed.accessToken).toBe(doc.access_token);
        for (const [field, key] of [
          ['refreshToken', 'refresh_token'],
          ['idToken', 'id_token'],
        ] as const) {
          if (parsed[field] === undefined) expect(doc[key] ?? undefined).toBeUndefined();
          else expect(parsed[field]).toBe(doc[key]);
        }
        if (parsed.expiresIn !== undefined) {
          expect(Number.isSafeInteger(parsed.expiresIn) || Number.isInteger(parsed.expiresIn)).toBe(true);
          expect(parsed.expiresIn).toBeGreaterThanOrEqual(0);
        }
        if (parsed.tokenType !== undefined) expect(String(doc.token_type).toLowerCase()).toBe('dpop');
        // Only what the cache's fields take comes out (a reply's scope is not kept).
        expect(
          Object.keys(parsed).every((k) =>
            ['accessToken', 'refreshToken', 'expiresIn', 'idToken', 'tokenType'].includes(k),
          ),
        ).toBe(true);
      }),
      PROPERTY_BUDGET,
    );
  });
});

describe('a record made of an accepted reply', () => {
  it('any expires_in the parser accepts: an expiry that is a time, and a record that is written and read back', () => {
    fc.assert(
      fc.property(fc.oneof(number, fc.stringMatching(/^\d{1,25}$/)), (expiresIn) => {
        let parsed;
        try {
          parsed = tokenReply({ access_token: 'at', expires_in: expiresIn }, 'auth.example.com');
        } catch {
          return;
        }
        const now = new Date('2030-01-01T00:00:00Z');
        for (const tokens of [
          AuthTokens.fromLogin(parsed, 'example.com', now),
          AuthTokens.fromClientCredentials(parsed, 'example.com', now, { clientId: 'ci' }),
        ]) {
          expect(Number.isNaN(tokens.expiresAt.getTime())).toBe(false);
          expect(tokens.expiresAt.getTime()).toBeGreaterThanOrEqual(now.getTime());
          expect(decodeRecord(encodeRecord(tokens))).toEqual(tokens);
        }
      }),
      PROPERTY_BUDGET,
    );
  });
});

describe('the device grant bounds on generated numbers', () => {
  it('any announced interval and lifetime: a poll interval within 1..300 s and a wait within 0..1800 s', () => {
    fc.assert(
      fc.property(
        fc.option(number, { nil: undefined }),
        number,
        fc.constantFrom('pending', 'slow_down'),
        (interval, expiresIn, outcome) => {
          const first = firstPollInterval({ interval });
          expect(first).toBeGreaterThanOrEqual(MIN_POLL_INTERVAL_S);
          expect(first).toBeLessThanOrEqual(MAX_POLL_INTERVAL_S);
          const next = nextPollInterval(first, outcome as 'pending' | 'slow_down');
          expect(next).toBeGreaterThanOrEqual(first);
          expect(next).toBeLessThanOrEqual(MAX_POLL_INTERVAL_S);
          const lifetime = deviceCodeLifetime({ expiresIn });
          expect(lifetime).toBeGreaterThanOrEqual(0);
          expect(lifetime).toBeLessThanOrEqual(MAX_DEVICE_CODE_LIFETIME_S);
        },
      ),
      PROPERTY_BUDGET,
    );
  });
});

describe('pushedAuthorizationReply on generated replies (RFC 9126 §2.2)', () => {
  const parReply = fc.record(
    {
      request_uri: fc.oneof(
        stringish,
        fc.constantFrom('urn:ietf:params:oauth:request_uri:abc', 'a b', '\u001b[31m', ''),
      ),
      expires_in: fc.oneof(number, fc.string(), fc.jsonValue()),
    },
    { requiredKeys: [] },
  );

  it('any JSON body or reply-shaped object: a request_uri of printable ASCII and a positive whole expires_in, or the one network error', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), parReply), (body) => {
        let parsed;
        try {
          parsed = pushedAuthorizationReply(body, 'auth.example.com');
        } catch (err) {
          expect(err).toBeInstanceOf(NetworkError);
          expect((err as NetworkError).code).toBe('OIDC.BAD_PAR_REPLY');
          return;
        }
        expect(parsed.requestUri).toBe((body as Record<string, unknown>).request_uri);
        expect(parsed.requestUri).toMatch(/^[\x21-\x7e]{1,2048}$/);
        expect(Number.isInteger(parsed.expiresIn) && parsed.expiresIn >= 1).toBe(true);
        expect(Object.keys(parsed).sort()).toEqual(['expiresIn', 'requestUri']);
      }),
      PROPERTY_BUDGET,
    );
  });
});

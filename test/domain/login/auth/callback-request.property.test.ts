import fc from 'fast-check';
import { classifyRequest, judgeCallback } from '../../../../src/domain/login/auth/callback-request';
import { IdentityError } from '../../../../src/domain/shared/errors';
import { redact } from '../../../../src/adapters/login/helpers/http-client';
import { PROPERTY_BUDGET } from '../../../support/property';

/**
 * The loopback callback is whatever reaches 127.0.0.1: a browser's redirect, or any local
 * process. classifyRequest reads the request head, judgeCallback its query (SSO steps 8-9,
 * docs/login-contract.md): a typed result or the documented identity error, the state
 * matched exactly, and neither the code nor the state ever repeated in a message.
 */

const ERROR_CODES = [
  'AUTH.CALLBACK_EMPTY',
  'AUTH.CALLBACK_NO_QUERY',
  'AUTH.CALLBACK_NO_CODE',
  'AUTH.CALLBACK_NO_STATE',
  'AUTH.CALLBACK_STATE_MISMATCH',
];

// Any code point, and the characters that carry meaning in a request line or a query.
const unit = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom('?', '&', '=', '%', '#', ' ', '+', '/', '\r', '\n', '\0', '\t') },
);
const anyText = fc.string({ unit, maxLength: 60 });
/** What a provider sends, or a forger guesses: URL-safe words, percent-encodings, anything. */
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
const secretLike = fc.oneof(
  fc.string({ unit: fc.constantFrom(...URL_SAFE), minLength: 8, maxLength: 43 }),
  fc.string({ unit: fc.constantFrom(...URL_SAFE, '%', '.', '~'), minLength: 8, maxLength: 43 }),
  fc.string({ unit, minLength: 8, maxLength: 43 }),
);
/** A generated state as skiff makes it (base64url of 16 bytes), or any non-empty text. */
const expectedState = fc.oneof(
  fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('base64url')),
  fc.string({ unit, minLength: 1, maxLength: 43 }),
);
/** A value that fits between `=` and the next `&`. */
const value = (text: fc.Arbitrary<string>) => text.map((s) => s.replace(/&/g, ''));
const key = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('code', 'state', 'error', 'error_description', 'iss', 'session_state') },
  { weight: 1, arbitrary: fc.constantFrom('Code', 'STATE', 'code ', '%63ode', '') },
  { weight: 1, arbitrary: anyText.map((s) => s.replace(/[&=]/g, '')) },
);
/** One `key=value` of a query, or a key alone. */
const pair = fc
  .tuple(key, fc.option(value(fc.oneof(secretLike, anyText, fc.constantFrom('access_denied')))))
  .map(([k, v]) => ({ key: k, value: v }));

type Pair = { key: string; value: string | null };

/** The query as a sequence of pairs, as a browser sends them (no decoding: judgeCallback decodes nothing). */
function query(pairs: readonly Pair[]): string {
  return pairs.map(({ key: k, value: v }) => (v === null ? k : `${k}=${v}`)).join('&');
}

/** The first value of `name` ('' for a key alone), as docs/login-contract.md step 9 reads it. */
function first(pairs: readonly Pair[], name: string): string | undefined {
  const found = pairs.find((p) => p.key === name);
  return found === undefined ? undefined : (found.value ?? '');
}

/** Every value a query carried: none of them may come back in a message in any form. */
function secretsOf(pairs: readonly Pair[], expected: string): string[] {
  // The provider's `error` is repeated on purpose when it is a plain word (RFC 6749 §4.1.2.1).
  const errors = new Set(pairs.filter((p) => p.key === 'error').map((p) => p.value));
  const values = pairs.filter((p) => p.value !== null && !errors.has(p.value)).map((p) => p.value as string);
  return errors.has(expected) ? values : [expected, ...values];
}

function judged(target: string, expected: string): { ok: { code: string; state: string } } | { err: unknown } {
  try {
    return { ok: judgeCallback(target, expected) };
  } catch (err) {
    return { err };
  }
}

/**
 * The messages of docs/login-contract.md step 9: fixed texts, but for the provider's `error`
 * when it is a plain word (RFC 6749 §4.1.2.1), which the redact rules must find no secret in.
 */
const MESSAGE =
  /^(the callback request was empty|the callback has no query string \(no code, no state\)|the callback has no code( \(the identity provider answered error=([A-Za-z0-9_.-]{1,64})\))?|the callback has no state|state mismatch in the callback: possible CSRF attack, the sign-in was refused): run `skiff auth login` again$/;

function expectDocumentedError(err: unknown, secrets: readonly string[]): IdentityError {
  // Plain checks (not expect): this runs thousands of times a property.
  const match = err instanceof IdentityError && ERROR_CODES.includes(err.code) ? MESSAGE.exec(err.message) : null;
  if (match === null) throw new Error(`not a documented callback error: ${String(err)}`);
  if (match[3] !== undefined) expect(redact(match[0], secrets)).toBe(match[0]);
  return err as IdentityError;
}

describe('judgeCallback on generated queries', () => {
  it('the first code and state of any query: accepted exactly when the state is the one generated, else the error that names why', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('/callback', '/callback/', ''),
        fc.array(pair, { maxLength: 8 }),
        expectedState,
        (path, pairs, expected) => {
          const q = query(pairs);
          const target = `${path}?${q}`;
          const outcome = judged(target, expected);
          const code = first(pairs, 'code');
          const state = first(pairs, 'state');
          if ('ok' in outcome) {
            expect(outcome.ok).toEqual({ code, state: expected });
            expect(state).toBe(expected);
            expect(code).not.toBe('');
            return;
          }
          const error = expectDocumentedError(outcome.err, secretsOf(pairs, expected));
          const why =
            q === ''
              ? 'AUTH.CALLBACK_NO_QUERY'
              : !code
                ? 'AUTH.CALLBACK_NO_CODE'
                : !state
                  ? 'AUTH.CALLBACK_NO_STATE'
                  : 'AUTH.CALLBACK_STATE_MISMATCH';
          expect(error.code).toBe(why);
          if (why === 'AUTH.CALLBACK_STATE_MISMATCH') expect(state).not.toBe(expected);
        },
      ),
      PROPERTY_BUDGET,
    );
  });

  it('a state that differs from the generated one in any way (case, encoding, a character more or less) is refused as CSRF', () => {
    const variants = (s: string): string[] => [
      s.toUpperCase(),
      s.toLowerCase(),
      encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x')),
      s.slice(1),
      s.slice(0, -1),
      `${s}x`,
      ` ${s}`,
      `${s}%00`,
    ];
    fc.assert(
      fc.property(
        expectedState,
        secretLike.map((c) => c.replace(/[&#]/g, '')),
        (expected, code) => {
          for (const forged of variants(expected.replace(/&/g, ''))) {
            if (forged === expected || forged === '') continue;
            const outcome = judged(`/callback?code=${code}&state=${forged}`, expected);
            if ('ok' in outcome) throw new Error(`accepted the state ${JSON.stringify(forged)}`);
            const error = expectDocumentedError(outcome.err, [code, expected]);
            if (error.code !== 'AUTH.CALLBACK_STATE_MISMATCH') throw new Error(`refused as ${error.code}`);
          }
        },
      ),
      PROPERTY_BUDGET,
    );
  });

  it('any target at all: the two-field result or a documented identity error, never another throw', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 200 }), expectedState, (target, expected) => {
        const outcome = judged(target, expected);
        if ('ok' in outcome) {
          expect(outcome.ok.state).toBe(expected);
          expect(typeof outcome.ok.code).toBe('string');
          expect(outcome.ok.code).not.toBe('');
          expect(Object.keys(outcome.ok).sort()).toEqual(['code', 'state']);
        } else {
          expectDocumentedError(outcome.err, [expected]);
        }
      }),
      PROPERTY_BUDGET,
    );
  });
});

describe('classifyRequest on generated request heads', () => {
  const method = fc.oneof(fc.constantFrom('GET', 'POST', 'HEAD', 'get', ''), anyText);
  const path = fc.oneof(fc.constantFrom('/callback', '/callbackx', '/favicon.ico', '/', '*'), anyText);
  const version = fc.oneof(fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2', 'HTTP/1.1 ', 'http/1.1'), anyText);
  const end = fc.constantFrom('\r\n', '\n', '', '\r');

  it('any head: ignored with 400, 404 or 405, or a GET /callback whose target is handed over whole; never a throw', () => {
    fc.assert(
      fc.property(method, path, fc.array(pair, { maxLength: 6 }), version, end, anyText, (m, p, pairs, v, e, rest) => {
        const q = pairs.length === 0 ? '' : `?${query(pairs)}`;
        const head = `${m} ${p}${q} ${v}${e}${rest}`;
        const verdict = classifyRequest(head);
        const line = head.split(/\r?\n/)[0];
        if (verdict.kind === 'callback') {
          expect(/\r?\n/.test(head)).toBe(true);
          expect(line).toBe(`GET ${verdict.target} ${line.split(' ')[2]}`);
          expect(verdict.target.split('?')[0]).toBe('/callback');
          return;
        }
        expect([400, 404, 405]).toContain(verdict.status);
        // The reason names the path or the method, never what the query carried.
        expect(redact(verdict.reason, secretsOf(pairs, 'unused-state'))).toBe(verdict.reason);
        if (/\r?\n/.test(head) && !q.includes(' ') && line === `GET /callback${q} HTTP/1.1`)
          throw new Error('a callback was ignored');
      }),
      PROPERTY_BUDGET,
    );
  });

  it('any bytes read from a connection (latin1, as the listener decodes them): a verdict, never a throw', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const verdict = classifyRequest(Buffer.from(bytes).toString('latin1'));
        if (verdict.kind === 'callback') expect(verdict.target.startsWith('/callback')).toBe(true);
        else expect([400, 404, 405]).toContain(verdict.status);
      }),
      PROPERTY_BUDGET,
    );
  });
});

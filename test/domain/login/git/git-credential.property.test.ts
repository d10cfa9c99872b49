import fc from 'fast-check';
import {
  gitCredentialReply,
  parseGitCredentialRequest,
  requestIsFor,
} from '../../../../src/domain/login/git/git-credential';
import { IdentityError, UsageError } from '../../../../src/domain/shared/errors';
import { PROPERTY_BUDGET } from '../../../support/property';

/**
 * `auth git-credential` reads whatever is on its stdin: git's `key=value` lines
 * (git-credential(1), "INPUT/OUTPUT FORMAT"), or anything a user or a script pipes in.
 * It reads them as git's credential_read_fp does (up to an empty line or EOF, a trailing CR
 * dropped, a line without `=` refused, the last of a repeated key winning), and what it
 * writes back reads back as exactly the values written.
 */

const unit = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom('=', '\r', '\0', '\x1b', ' ', ':', '/', '\u2028') },
);
const text = (maxLength: number) => fc.string({ unit, maxLength });
/** A value git could send: no line break (git refuses to write one), anything else. */
const value = fc.oneof(
  { weight: 6, arbitrary: text(40).map((s) => s.replace(/\n/g, '')) },
  { weight: 2, arbitrary: fc.constantFrom('https', 'http', 'src.example.com', 'SRC.Example.com:8443', '') },
  { weight: 1, arbitrary: fc.nat({ max: 200_000 }).map((n) => 'h'.repeat(n)) },
);
const key = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('protocol', 'host', 'path', 'username', 'password', 'url') },
  { weight: 1, arbitrary: fc.constantFrom('', 'Host', 'host ', 'wwwauth[]', 'capability[]', 'protocol\r') },
  { weight: 1, arbitrary: text(12).map((s) => s.replace(/[\n=]/g, '')) },
);
/** One line as git writes it, or one that is not `key=value` at all. */
const line = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(key, value).map(([k, v]) => ({ key: k, value: v as string | null })) },
  {
    weight: 1,
    arbitrary: text(40).map((s) => ({ key: s.replace(/[\n=]/g, ''), value: null })),
  },
);
type Line = { key: string; value: string | null };
const eol = fc.constantFrom('\n', '\r\n');

/**
 * What git's credential_read_fp makes of `input`, reduced to the fields skiff reads: lines
 * up to the first empty one, a CR before the LF dropped, a line without `=` a refusal, the
 * last value of a key kept. (git also takes `url=` apart into the other fields; git never
 * sends it to a helper, and skiff ignores it.)
 */
function asGitReadsIt(input: string): { protocol?: string; host?: string } | 'refused' {
  const fields: { protocol?: string; host?: string } = {};
  for (const raw of input.split('\n')) {
    const read = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (read === '') break;
    const eq = read.indexOf('=');
    if (eq < 0) return 'refused';
    const k = read.slice(0, eq);
    if (k === 'protocol' || k === 'host') fields[k] = read.slice(eq + 1);
  }
  return fields;
}

function render(lines: readonly Line[], ends: readonly string[]): string {
  return lines.map((l, i) => (l.value === null ? l.key : `${l.key}=${l.value}`) + ends[i % ends.length]).join('');
}

function parsed(input: string): { ok: ReturnType<typeof parseGitCredentialRequest> } | { err: unknown } {
  try {
    return { ok: parseGitCredentialRequest(input) };
  } catch (err) {
    return { err };
  }
}

function expectOneLineUsageError(err: unknown): void {
  expect(err).toBeInstanceOf(UsageError);
  expect((err as UsageError).code).toBe('GIT.BAD_INPUT');
  // One line, and no byte of the input that a terminal would act on.
  // eslint-disable-next-line no-control-regex -- control characters are what must not appear
  expect((err as Error).message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
}

describe('parseGitCredentialRequest on generated input', () => {
  it("git's lines, repeated keys, CRLF, NUL, empty keys, huge values, lines without `=`: read as git reads them", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 12 }),
        fc.array(eol, { minLength: 1, maxLength: 3 }),
        fc.option(text(40)),
        (lines, ends, after) => {
          const input = render(lines, ends) + (after === null ? '' : `\n${after}`);
          const outcome = parsed(input);
          const git = asGitReadsIt(input);
          if ('err' in outcome) {
            expectOneLineUsageError(outcome.err);
            expect(git).toBe('refused');
            return;
          }
          expect(outcome.ok).toEqual(git);
          for (const v of Object.values(outcome.ok)) expect(v).not.toMatch(/\n/);
          expect(Object.keys(outcome.ok).every((k) => k === 'protocol' || k === 'host')).toBe(true);
        },
      ),
      PROPERTY_BUDGET,
    );
  });

  it('any text at all: the two fields, or one usage error on one line', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(unit, fc.constant('\n')), maxLength: 300 }), (input) => {
        const outcome = parsed(input);
        if ('err' in outcome) expectOneLineUsageError(outcome.err);
        else for (const v of Object.values(outcome.ok)) expect(typeof v).toBe('string');
      }),
      PROPERTY_BUDGET,
    );
  });
});

describe('gitCredentialReply on generated requests and tokens', () => {
  it('what it writes reads back as its four lines, exactly; or it writes nothing', () => {
    fc.assert(
      fc.property(value, value, fc.oneof(value, text(60)), (protocol, host, token) => {
        let reply: string;
        try {
          reply = gitCredentialReply({ protocol, host }, token);
        } catch (err) {
          expect(err).toBeInstanceOf(IdentityError);
          expect([protocol, host, token].some((v) => /[\r\n\0]/.test(v))).toBe(true);
          return;
        }
        const lines = reply.split('\n');
        expect(lines.pop()).toBe('');
        expect(lines).toEqual([`protocol=${protocol}`, `host=${host}`, 'username=skiff', `password=${token}`]);
        expect(parseGitCredentialRequest(reply)).toEqual({ protocol, host });
      }),
      PROPERTY_BUDGET,
    );
  });

  it('a request read from any input is served only when it names the git host, and its reply names that host', () => {
    const gitHost = 'https://src.example.com:8443';
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), (lines) => {
        const outcome = parsed(render(lines, ['\n']));
        if ('err' in outcome || !requestIsFor(outcome.ok, gitHost)) return;
        expect(outcome.ok.protocol).toBe('https');
        expect(outcome.ok.host?.toLowerCase()).toBe('src.example.com:8443');
        expect(parseGitCredentialRequest(gitCredentialReply(outcome.ok, 'token'))).toEqual(outcome.ok);
      }),
      PROPERTY_BUDGET,
    );
  });
});

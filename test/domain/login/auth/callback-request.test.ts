import {
  CALLBACK_READ_LIMIT,
  CALLBACK_WAIT_MS,
  classifyRequest,
  judgeCallback,
} from '../../../../src/domain/login/auth/callback-request';
import { IdentityError } from '../../../../src/domain/shared/errors';

const STATE = 'ABAgMEBQYHCAkKCwwNDg8A';

describe('callback limits', () => {
  it('reads at most 4096 bytes and waits 300 seconds', () => {
    expect(CALLBACK_READ_LIMIT).toBe(4096);
    expect(CALLBACK_WAIT_MS).toBe(300_000);
  });
});

describe('which requests are judged', () => {
  it('hands over GET /callback with its query, as it stands', () => {
    expect(classifyRequest('GET /callback?code=a%2Fb&state=s HTTP/1.1\r\nHost: localhost\r\n\r\n')).toEqual({
      kind: 'callback',
      target: '/callback?code=a%2Fb&state=s',
    });
  });

  it('answers other paths 404 (a favicon or preconnect request)', () => {
    expect(classifyRequest('GET /favicon.ico HTTP/1.1\r\n\r\n')).toMatchObject({ kind: 'ignore', status: 404 });
    expect(classifyRequest('GET /callbackx?code=1 HTTP/1.1\r\n')).toMatchObject({ kind: 'ignore', status: 404 });
  });

  it('answers other methods on /callback 405', () => {
    expect(classifyRequest('POST /callback?code=1&state=2 HTTP/1.1\r\n')).toMatchObject({
      kind: 'ignore',
      status: 405,
    });
  });

  it('answers a missing or malformed request line 400', () => {
    expect(classifyRequest('')).toMatchObject({ kind: 'ignore', status: 400 });
    expect(classifyRequest('\r\n')).toMatchObject({ kind: 'ignore', status: 400 });
    expect(classifyRequest('GET /callback?code=1')).toMatchObject({ kind: 'ignore', status: 400 });
    expect(classifyRequest('hello there\n')).toMatchObject({ kind: 'ignore', status: 400 });
  });
});

describe('judging the callback (SSO steps 8-9)', () => {
  it('extracts code and state without percent-decoding', () => {
    expect(judgeCallback(`/callback?code=ab%2Fc%3D&state=${STATE}`, STATE)).toEqual({
      code: 'ab%2Fc%3D',
      state: STATE,
    });
  });

  it('takes parameters in any order, the first occurrence winning', () => {
    expect(judgeCallback(`/callback?state=${STATE}&x=1&code=c1&code=c2`, STATE).code).toBe('c1');
  });

  const failure = (target: string) => {
    try {
      judgeCallback(target, STATE);
    } catch (err) {
      return err as Error;
    }
    throw new Error('expected a failure');
  };

  it('is an identity error naming a missing query string', () => {
    const err = failure('/callback');
    expect(err).toBeInstanceOf(IdentityError);
    expect(err.message).toMatch(/no query string/);
  });

  it('is an identity error naming a missing code (and the provider error, when safe to repeat)', () => {
    expect(failure(`/callback?state=${STATE}`).message).toMatch(/no code/);
    expect(failure(`/callback?error=access_denied&state=${STATE}`).message).toContain('error=access_denied');
    expect(failure(`/callback?error=%3Cscript%3E&state=${STATE}`).message).not.toContain('script');
  });

  it('is an identity error naming a missing state', () => {
    expect(failure('/callback?code=abc').message).toMatch(/no state/);
    expect(failure('/callback?code=abc&state=').message).toMatch(/no state/);
  });

  it('is an identity error mentioning CSRF when the state differs', () => {
    const err = failure('/callback?code=abc&state=forged');
    expect(err).toBeInstanceOf(IdentityError);
    expect(err.message).toMatch(/state mismatch/);
    expect(err.message).toMatch(/CSRF/);
  });

  it('is an identity error for an empty request', () => {
    expect(failure('').message).toMatch(/empty/);
  });

  it('never repeats the code in the message', () => {
    expect(failure('/callback?code=secret-code&state=forged').message).not.toContain('secret-code');
  });
});

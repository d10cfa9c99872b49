import { AuthTokens } from '../../../../src/domain/login/auth/auth-tokens';
import { statusReport } from '../../../../src/domain/login/auth/status-report';
import {
  assertTokenExchangeOffered,
  JWT_TOKEN_TYPE,
  subjectTokenType,
  TOKEN_EXCHANGE_GRANT,
} from '../../../../src/domain/login/auth/token-exchange';
import { ConfigurationError } from '../../../../src/domain/shared/errors';
import { NOW } from '../../../support/tokens';

const SUBJECT = { clientId: 'skiff-cli', subjectTokenFile: '/ci/token', subjectTokenType: JWT_TOKEN_TYPE };
const STORE = { kind: 'file', path: '/cache/d.json' } as const;

describe('the token exchange of a robot (RFC 8693)', () => {
  it('is offered only when grant_types_supported lists it', () => {
    expect(() => assertTokenExchangeOffered(['client_credentials', TOKEN_EXCHANGE_GRANT], 'id.example')).not.toThrow();
    for (const grants of [undefined, [], ['client_credentials']]) {
      expect(() => assertTokenExchangeOffered(grants, 'id.example')).toThrow(ConfigurationError);
    }
    expect(() => assertTokenExchangeOffered(undefined, 'id.example')).toThrow(
      /id\.example does not offer the token exchange grant \(grant_types_supported is absent\)/,
    );
  });

  it('the subject token type: jwt by default; any absolute URI; anything else a configuration error', () => {
    expect(subjectTokenType(undefined)).toBe('urn:ietf:params:oauth:token-type:jwt');
    expect(subjectTokenType('urn:ietf:params:oauth:token-type:id_token')).toBe(
      'urn:ietf:params:oauth:token-type:id_token',
    );
    expect(subjectTokenType('https://ci.example/token-type')).toBe('https://ci.example/token-type');
    for (const bad of ['', 'jwt', 'urn:a b', 'urn:a\nb', ':x']) {
      const err = (() => {
        try {
          subjectTokenType(bad);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(ConfigurationError);
      expect((err as ConfigurationError).code).toBe('AUTH.SUBJECT_TOKEN_TYPE');
    }
  });

  it("its record: no refresh or id token; the client and the subject token's file and type kept; exchanged again, the rest kept", () => {
    const record = AuthTokens.fromTokenExchange(
      { accessToken: 'a', refreshToken: 'r', idToken: 'i', expiresIn: 60 },
      'd',
      NOW,
      SUBJECT,
    );
    expect(Object.keys(record).sort()).toEqual([
      'accessToken',
      'clientId',
      'domain',
      'expiresAt',
      'refreshToken',
      'subjectTokenFile',
      'subjectTokenType',
    ]);
    expect(record.refreshToken).toBe('');
    expect(record.signInKind()).toBe('token-exchange');
    expect(record.scopes()).toBeUndefined();
    expect(record.robotClient()).toBeUndefined();
    expect(record.exchangeSubject()).toEqual(SUBJECT);
    expect(record.renewable()).toBe(true);
    const again = record.withObtainedAgain({ accessToken: 'b', expiresIn: 120 }, NOW);
    expect(again.exchangeSubject()).toEqual(SUBJECT);
    expect(again.expiresAt).toEqual(new Date(NOW.getTime() + 120_000));
  });

  it('a client credentials record or a person’s is no token exchange', () => {
    expect(AuthTokens.fromClientCredentials({ accessToken: 'a' }, 'd', NOW, { clientId: 'ci' }).exchangeSubject()).toBe(
      undefined,
    );
    expect(AuthTokens.fromLogin({ accessToken: 'a' }, 'd', NOW).exchangeSubject()).toBeUndefined();
  });

  it('status names the kind and the file, never the token; expired, it is renewed on next use', () => {
    const record = AuthTokens.fromTokenExchange({ accessToken: 'secret-at', expiresIn: 0 }, 'd', NOW, SUBJECT);
    const report = statusReport(record, NOW, STORE);
    expect(report).toMatchObject({
      loggedIn: true,
      identity: 'subject token /ci/token',
      signIn: 'token-exchange',
      scopes: null,
      refreshOnNextUse: true,
    });
    expect(JSON.stringify(report)).not.toContain('secret-at');
  });
});

import { AuthTokens } from '../../../../src/domain/login/auth/auth-tokens';
import { assertClientCredentialsOffered, clientAuthMethod } from '../../../../src/domain/login/auth/client-credentials';
import { ConfigurationError } from '../../../../src/domain/shared/errors';
import { NOW } from '../../../support/tokens';

describe('the client credentials grant of a robot (RFC 6749 §4.4)', () => {
  it('is offered only when grant_types_supported lists it (absent: authorization_code and implicit only)', () => {
    expect(() =>
      assertClientCredentialsOffered(['authorization_code', 'client_credentials'], 'id.example'),
    ).not.toThrow();
    for (const grants of [undefined, [], ['authorization_code']]) {
      expect(() => assertClientCredentialsOffered(grants, 'id.example')).toThrow(ConfigurationError);
    }
    expect(() => assertClientCredentialsOffered(['authorization_code'], 'id.example')).toThrow(
      /id\.example does not offer the client credentials grant \(grant_types_supported lists authorization_code\)/,
    );
  });

  it('authenticates with client_secret_basic when listed or when the list is absent, else client_secret_post', () => {
    expect(clientAuthMethod(undefined, 'h')).toBe('client_secret_basic');
    expect(clientAuthMethod(['client_secret_post', 'client_secret_basic'], 'h')).toBe('client_secret_basic');
    expect(clientAuthMethod(['none', 'client_secret_post'], 'h')).toBe('client_secret_post');
    expect(() => clientAuthMethod(['private_key_jwt'], 'h')).toThrow(/accepts no client secret.*private_key_jwt/);
  });

  it("a robot's record: no refresh or id token, the client kept; obtained again, the rest kept", () => {
    const record = AuthTokens.fromClientCredentials(
      { accessToken: 'a', refreshToken: 'r', idToken: 'i', expiresIn: 60 },
      'd',
      NOW,
      { clientId: 'ci', clientSecretFile: '/s' },
    );
    expect(record).toMatchObject({ refreshToken: '', clientId: 'ci', clientSecretFile: '/s' });
    expect(Object.keys(record).sort()).toEqual([
      'accessToken',
      'clientId',
      'clientSecretFile',
      'domain',
      'expiresAt',
      'refreshToken',
    ]);
    expect(record.signInKind()).toBe('client-credentials');
    expect(record.scopes()).toBeUndefined();
    expect(record.canRefresh()).toBe(false);
    expect(record.robotClient()).toEqual({ clientId: 'ci', clientSecretFile: '/s' });
    const again = record.withObtainedAgain({ accessToken: 'b', expiresIn: 120 }, NOW);
    expect(again).toMatchObject({ accessToken: 'b', clientId: 'ci', clientSecretFile: '/s' });
    expect(Object.keys(again).sort()).toEqual(Object.keys(record).sort());
    expect(again.expiresAt).toEqual(new Date(NOW.getTime() + 120_000));
    expect(AuthTokens.fromClientCredentials({ accessToken: 'a' }, 'd', NOW, { clientId: 'ci' }).robotClient()).toEqual({
      clientId: 'ci',
    });
  });

  it("a person's record (no client id) is no robot", () => {
    const browser = AuthTokens.fromLogin({ accessToken: 'a' }, 'd', NOW);
    expect(browser.robotClient()).toBeUndefined();
    expect(browser.signInKind()).toBe('person');
  });
});

import {
  authorizationUrl,
  CLIENT_ID,
  redirectUriFor,
  SCOPE,
} from '../../../../src/domain/login/auth/authorization-url';

describe('authorization URL (SSO steps 5-6)', () => {
  const url = authorizationUrl({
    authorizationEndpoint: 'https://auth.example.com/oauth/authorize',
    redirectUri: redirectUriFor(9877),
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    state: 'ABAgMEBQYHCAkKCwwNDg8A',
  });

  it('is the endpoint, ?, then the seven parameters in the documented order, percent-encoded', () => {
    expect(url).toBe(
      'https://auth.example.com/oauth/authorize?client_id=skiff-cli' +
        '&redirect_uri=http%3A%2F%2Flocalhost%3A9877%2Fcallback' +
        '&response_type=code' +
        '&scope=openid%20email%20profile%20offline_access' +
        '&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' +
        '&code_challenge_method=S256' +
        '&state=ABAgMEBQYHCAkKCwwNDg8A',
    );
  });

  it('names the parameters in exactly this order', () => {
    const names = url
      .split('?')[1]
      .split('&')
      .map((p) => p.split('=')[0]);
    expect(names).toEqual([
      'client_id',
      'redirect_uri',
      'response_type',
      'scope',
      'code_challenge',
      'code_challenge_method',
      'state',
    ]);
  });

  it('uses the constant client id and scopes', () => {
    expect(CLIENT_ID).toBe('skiff-cli');
    expect(SCOPE).toBe('openid email profile offline_access');
  });

  it('redirects to localhost on the listening port', () => {
    expect(redirectUriFor(51234)).toBe('http://localhost:51234/callback');
  });
});

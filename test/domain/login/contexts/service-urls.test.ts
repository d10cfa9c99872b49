import { checkServiceUrl, serviceUrls } from '../../../../src/domain/login/contexts/service-urls';
import { ConfigurationError } from '../../../../src/domain/shared/errors';

describe('service URLs', () => {
  it('are auth., src. and projects.<domain>/api by default', () => {
    expect(serviceUrls('example.com')).toEqual({
      identityProvider: 'https://auth.example.com',
      gitHost: 'https://src.example.com',
      boards: 'https://projects.example.com/api',
    });
  });

  it('take the overrides, without a trailing slash', () => {
    expect(
      serviceUrls('example.com', {
        identityProviderUrl: 'http://127.0.0.1:5556/',
        boardsUrl: 'https://b.example.com/api',
      }),
    ).toEqual({
      identityProvider: 'http://127.0.0.1:5556',
      gitHost: 'https://src.example.com',
      boards: 'https://b.example.com/api',
    });
  });

  it('accept plain http only for loopback hosts', () => {
    expect(checkServiceUrl('http://localhost:1', 'x')).toBe('http://localhost:1');
    expect(checkServiceUrl('http://127.0.0.2:1', 'x')).toBe('http://127.0.0.2:1');
    expect(checkServiceUrl('http://[::1]:1', 'x')).toBe('http://[::1]:1');
    expect(() => checkServiceUrl('http://auth.example.com', 'x')).toThrow(ConfigurationError);
    expect(() => checkServiceUrl('http://127.0.0.1.evil.com', 'x')).toThrow(ConfigurationError);
    expect(() => checkServiceUrl('ftp://127.0.0.1', 'x')).toThrow(ConfigurationError);
  });

  it('refuse credentials, queries, fragments and non-URLs', () => {
    expect(() => checkServiceUrl('https://u:p@h', 'x')).toThrow(/credentials/);
    expect(() => checkServiceUrl('https://h/?a=1', 'x')).toThrow(ConfigurationError);
    expect(() => checkServiceUrl('not a url', 'x')).toThrow(/not a URL/);
  });

  it('a domain that makes no URL is a configuration error', () => {
    expect(() => serviceUrls('exa mple')).toThrow(ConfigurationError);
  });
});

import { cacheFileName, safeDomain } from '../../../../src/domain/login/auth/safe-domain';

describe('safe_domain and the cache file name', () => {
  it('replaces every /, \\ and : with _', () => {
    expect(safeDomain('example.com:8443/a\\b')).toBe('example.com_8443_a_b');
    expect(cacheFileName('localhost:8080')).toBe('localhost_8080.json');
  });

  it('keeps other characters', () => {
    expect(cacheFileName('dev.example.com')).toBe('dev.example.com.json');
  });

  it('names the empty domain default.json', () => {
    expect(cacheFileName('')).toBe('default.json');
  });

  it('never yields a path separator', () => {
    expect(cacheFileName('../../etc/passwd')).not.toMatch(/[/\\]/);
  });
});

import { formEncode, percentEncode } from '../../../../src/domain/login/auth/percent-encoding';

describe('percent-encoding (SSO step 6)', () => {
  it('leaves A-Z a-z 0-9 - _ . ~ as they are', () => {
    const unreserved = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~';
    expect(percentEncode(unreserved)).toBe(unreserved);
  });

  it('turns every other byte into % and two uppercase hex digits', () => {
    expect(percentEncode('http://localhost:9876/callback')).toBe('http%3A%2F%2Flocalhost%3A9876%2Fcallback');
    expect(percentEncode('a b+c*d!')).toBe('a%20b%2Bc%2Ad%21');
    expect(percentEncode('\n')).toBe('%0A');
    expect(percentEncode('ÿ')).toBe('%C3%BF');
  });

  it('encodes the UTF-8 bytes of non-ASCII text', () => {
    expect(percentEncode('é€')).toBe('%C3%A9%E2%82%AC');
  });

  it('builds form bodies with the same rule, in the given order', () => {
    expect(
      formEncode([
        ['grant_type', 'refresh_token'],
        ['refresh_token', 'a/b c'],
        ['client_id', 'skiff-cli'],
      ]),
    ).toBe('grant_type=refresh_token&refresh_token=a%2Fb%20c&client_id=skiff-cli');
  });
});

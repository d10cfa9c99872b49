import { emailClaim, readableEmail } from '../../../../src/domain/login/auth/id-token';
import { IdentityError } from '../../../../src/domain/shared/errors';
import { idToken } from '../../../support/tokens';

describe('the id_token e-mail claim (read without verification)', () => {
  it('reads email from the payload', () => {
    expect(emailClaim(idToken({ sub: '1', email: 'alice@example.com' }))).toBe('alice@example.com');
  });

  it('needs only two segments (no signature check)', () => {
    const [header, payload] = idToken({ email: 'bob@example.com' }).split('.');
    expect(emailClaim(`${header}.${payload}`)).toBe('bob@example.com');
  });

  it('reads UTF-8 claims', () => {
    expect(emailClaim(idToken({ email: 'zoë@exämple.com' }))).toBe('zoë@exämple.com');
  });

  it('gives undefined when the payload has no string email', () => {
    expect(emailClaim(idToken({ sub: '1' }))).toBeUndefined();
    expect(emailClaim(idToken({ email: 42 }))).toBeUndefined();
  });

  it('is an identity error with fewer than two segments', () => {
    expect(() => emailClaim('just-one-segment')).toThrow(IdentityError);
    expect(() => emailClaim('')).toThrow(IdentityError);
  });

  it('is an identity error when the payload is not base64url JSON', () => {
    expect(() => emailClaim('aGVhZA.!!!.sig')).toThrow(IdentityError);
    expect(() => emailClaim(`aGVhZA.${Buffer.from('not json').toString('base64url')}.sig`)).toThrow(IdentityError);
  });

  it('readableEmail turns every failure into undefined', () => {
    expect(readableEmail('one')).toBeUndefined();
    expect(readableEmail(undefined)).toBeUndefined();
    expect(readableEmail(idToken({ email: 'a@b.c' }))).toBe('a@b.c');
  });
});

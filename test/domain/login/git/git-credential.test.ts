import {
  gitCredentialReply,
  parseGitCredentialRequest,
  requestIsFor,
  shellQuote,
} from '../../../../src/domain/login/git/git-credential';
import { IdentityError, UsageError } from '../../../../src/domain/shared/errors';

describe("git's credential helper protocol", () => {
  it('reads protocol and host up to the blank line; other keys are ignored, the last of each wins (as git)', () => {
    expect(
      parseGitCredentialRequest('protocol=https\r\nhost=x\npath=a/b.git\nhost=src.example.com\n\nprotocol=http\n'),
    ).toEqual({ protocol: 'https', host: 'src.example.com' });
    expect(parseGitCredentialRequest('')).toEqual({});
    expect(() => parseGitCredentialRequest('nonsense\n')).toThrow(UsageError);
  });

  it('names a line that is not key=value on one line, its control characters escaped', () => {
    // Found by git-credential.property.test.ts: a NUL or an ESC went to the terminal as is.
    expect(() => parseGitCredentialRequest('\u0000\n')).toThrow('git credential input line "\\u0000" is not key=value');
    expect(() => parseGitCredentialRequest('\u001b]0;x\u0007\u2028\u009b\n')).toThrow(
      'git credential input line "\\u001b]0;x\\u0007\\u2028\\u009b" is not key=value',
    );
  });

  it('reads what git reads (credential_read_fp): an empty key is ignored, not refused', () => {
    // Found by git-credential.property.test.ts: `=https` was refused, where git takes it.
    expect(parseGitCredentialRequest('=https\nprotocol=https\nhost=h\n')).toEqual({ protocol: 'https', host: 'h' });
    // The host git would use for a request naming two is the last.
    expect(parseGitCredentialRequest('protocol=https\nhost=src.example.com\nhost=evil.example.com\n')).toEqual({
      protocol: 'https',
      host: 'evil.example.com',
    });
  });

  it('serves the git host alone: same scheme, host and port (case-insensitive host)', () => {
    const git = 'https://src.example.com';
    expect(requestIsFor({ protocol: 'https', host: 'SRC.example.com' }, git)).toBe(true);
    expect(requestIsFor({ protocol: 'http', host: 'src.example.com' }, git)).toBe(false);
    expect(requestIsFor({ protocol: 'https', host: 'src.example.com:8443' }, git)).toBe(false);
    expect(requestIsFor({ protocol: 'https', host: 'evil.example.com' }, git)).toBe(false);
    expect(requestIsFor({ protocol: 'https' }, git)).toBe(false);
    expect(requestIsFor({ protocol: 'https', host: '127.0.0.1:4443' }, 'https://127.0.0.1:4443/')).toBe(true);
  });

  it('answers with the token as the password', () => {
    expect(gitCredentialReply({ protocol: 'https', host: 'src.example.com' }, 'tok')).toBe(
      'protocol=https\nhost=src.example.com\nusername=skiff\npassword=tok\n',
    );
  });

  it('never writes a value git would read as more lines, or otherwise than written', () => {
    // Found by git-credential.property.test.ts: a token with a line break added a line of its own.
    expect(() =>
      gitCredentialReply({ protocol: 'https', host: 'src.example.com' }, 'tok\nhost=evil.example.com'),
    ).toThrow(IdentityError);
    expect(() => gitCredentialReply({ protocol: '\r', host: 'src.example.com' }, 'tok')).toThrow(/protocol/);
    expect(() => gitCredentialReply({ protocol: 'https', host: 'src.example.com' }, 'tok\0')).toThrow(
      /run `skiff auth git` again/,
    );
  });

  it('quotes the words of the helper command for the shell git runs it with', () => {
    expect(shellQuote('/usr/bin/skiff')).toBe('/usr/bin/skiff');
    expect(shellQuote('/opt/my skiff/run.js')).toBe("'/opt/my skiff/run.js'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('$(x)')).toBe("'$(x)'");
  });
});

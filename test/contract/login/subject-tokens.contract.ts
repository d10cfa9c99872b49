import { isAbsolute } from 'node:path';
import { SubjectTokens } from '../../../src/application/login/ports/subject-tokens.port';
import { ConfigurationError } from '../../../src/domain/shared/errors';

export interface SubjectTokensSubject {
  readonly tokens: SubjectTokens;
  /** Puts `text` in a file of the working directory named `name`; its absolute path. */
  put(name: string, text: string): string;
  cleanup(): void;
}

async function refusal(read: Promise<string>): Promise<ConfigurationError> {
  const err = await read.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ConfigurationError);
  return err as ConfigurationError;
}

/** What every SubjectTokens does, run against the fake (skiff-cli/testing) and the file adapter alike. */
export function subjectTokensContract(name: string, make: () => SubjectTokensSubject): void {
  describe(`${name} honours the SubjectTokens contract`, () => {
    let subject: SubjectTokensSubject;
    beforeEach(() => (subject = make()));
    afterEach(() => subject.cleanup());

    it('reads a file, trimmed, by its relative or absolute name; read again, a rotated file gives the new token', async () => {
      const path = subject.put('ci-token', 'header.claims.sig\n');
      expect(isAbsolute(subject.tokens.absolute('ci-token'))).toBe(true);
      expect(subject.tokens.absolute('ci-token')).toBe(path);
      await expect(subject.tokens.read('ci-token')).resolves.toBe('header.claims.sig');
      subject.put('ci-token', 'rotated.claims.sig');
      await expect(subject.tokens.read(path)).resolves.toBe('rotated.claims.sig');
    });

    it('a missing file or an empty one: AUTH.SUBJECT_TOKEN_UNREADABLE naming the file, never its content', async () => {
      const missing = subject.tokens.absolute('none');
      let err = await refusal(subject.tokens.read('none'));
      expect(err.code).toBe('AUTH.SUBJECT_TOKEN_UNREADABLE');
      expect(err.message).toBe(`the subject token file ${missing} does not exist`);
      const empty = subject.put('empty', ' \n');
      err = await refusal(subject.tokens.read(empty));
      expect(err.code).toBe('AUTH.SUBJECT_TOKEN_UNREADABLE');
      expect(err.message).toBe(`the subject token file ${empty} is empty`);
    });
  });
}

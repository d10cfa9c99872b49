import { isAbsolute } from 'node:path';
import { ClientSecrets } from '../../../src/application/login/ports/client-secrets.port';
import { ConfigurationError } from '../../../src/domain/shared/errors';

export interface ClientSecretsSubject {
  readonly secrets: ClientSecrets;
  /** Puts `text` in a file of the working directory named `name`; its absolute path. */
  put(name: string, text: string): string;
  cleanup(): void;
}

async function refusal(read: Promise<string>): Promise<ConfigurationError> {
  const err = await read.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ConfigurationError);
  return err as ConfigurationError;
}

/** What every ClientSecrets does, run against the fake (skiff-cli/testing) and the file adapter alike. */
export function clientSecretsContract(name: string, make: (env: string | undefined) => ClientSecretsSubject): void {
  describe(`${name} honours the ClientSecrets contract`, () => {
    const subjects: ClientSecretsSubject[] = [];
    const subject = (env?: string) => {
      const made = make(env);
      subjects.push(made);
      return made;
    };
    afterEach(() => subjects.splice(0).forEach((s) => s.cleanup()));

    it('reads a file, surrounding blanks and the final newline trimmed, by its relative or absolute name', async () => {
      const s = subject();
      const path = s.put('secret', '  s3cret\n');
      expect(isAbsolute(s.secrets.absolute('secret'))).toBe(true);
      expect(s.secrets.absolute('secret')).toBe(path);
      await expect(s.secrets.read('secret')).resolves.toBe('s3cret');
      await expect(s.secrets.read(path)).resolves.toBe('s3cret');
    });

    it('without a file: SKIFF_CLIENT_SECRET, trimmed; absent or blank is AUTH.CLIENT_SECRET_MISSING', async () => {
      await expect(subject('e\n').secrets.read(undefined)).resolves.toBe('e');
      for (const env of [undefined, '', ' \n']) {
        const err = await refusal(subject(env).secrets.read(undefined));
        expect(err.code).toBe('AUTH.CLIENT_SECRET_MISSING');
        expect(err.message).toBe('no client secret: pass --client-secret-file <file> or set SKIFF_CLIENT_SECRET');
      }
    });

    it('a missing file or an empty one: AUTH.CLIENT_SECRET_UNREADABLE naming the file', async () => {
      const s = subject('ignored when a file is named');
      const missing = s.secrets.absolute('none');
      let err = await refusal(s.secrets.read('none'));
      expect(err.code).toBe('AUTH.CLIENT_SECRET_UNREADABLE');
      expect(err.message).toBe(`the client secret file ${missing} does not exist`);
      const empty = s.put('empty', ' \n');
      err = await refusal(s.secrets.read(empty));
      expect(err.code).toBe('AUTH.CLIENT_SECRET_UNREADABLE');
      expect(err.message).toBe(`the client secret file ${empty} is empty`);
    });
  });
}

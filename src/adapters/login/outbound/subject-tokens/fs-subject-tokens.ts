import { resolve } from 'node:path';
import { SubjectTokens } from '../../../../application/login/ports/subject-tokens.port';
import { readSecretFile } from '../../helpers/secret-file';

/**
 * A token exchange's subject token, read from its file at each exchange (CI systems rotate
 * it; see readSecretFile: a link such as a projected service account token is followed).
 */
export class FsSubjectTokens implements SubjectTokens {
  constructor(private readonly cwd: () => string = () => process.cwd()) {}

  absolute(file: string): string {
    return resolve(this.cwd(), file);
  }

  async read(file: string): Promise<string> {
    return readSecretFile(this.absolute(file), 'the subject token file', 'AUTH.SUBJECT_TOKEN_UNREADABLE');
  }
}

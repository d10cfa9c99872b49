import { ConfigurationError } from '../../../domain/shared/errors';
import { SubjectTokens } from '../../../application/login/ports/subject-tokens.port';

/**
 * Subject token files in memory, by path (relative names under a fixed working directory);
 * trimmed and refused as FsSubjectTokens does (test/contract/login/subject-tokens.contract.ts).
 */
export class FakeSubjectTokens implements SubjectTokens {
  static readonly CWD = '/home/robot';
  readonly files = new Map<string, string>();
  readonly reads: string[] = [];

  absolute(file: string): string {
    return file.startsWith('/') ? file : `${FakeSubjectTokens.CWD}/${file}`;
  }

  async read(file: string): Promise<string> {
    const path = this.absolute(file);
    this.reads.push(path);
    const refused = (detail: string) =>
      new ConfigurationError(`the subject token file ${path} ${detail}`, 'AUTH.SUBJECT_TOKEN_UNREADABLE');
    const text = this.files.get(path);
    if (text === undefined) throw refused('does not exist');
    const token = text.trim();
    if (token === '') throw refused('is empty');
    return token;
  }
}

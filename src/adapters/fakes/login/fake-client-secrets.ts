import { CLIENT_SECRET_ENV } from '../../../domain/login/auth/client-credentials';
import { ConfigurationError } from '../../../domain/shared/errors';
import { ClientSecrets } from '../../../application/login/ports/client-secrets.port';

const unreadable = (path: string, detail: string) =>
  new ConfigurationError(`the client secret file ${path} ${detail}`, 'AUTH.CLIENT_SECRET_UNREADABLE');

/**
 * Client secrets in memory: by file path (relative names under a fixed working directory),
 * and `env` for SKIFF_CLIENT_SECRET; trimmed and refused as FsClientSecrets does
 * (test/contract/login/client-secrets.contract.ts).
 */
export class FakeClientSecrets implements ClientSecrets {
  static readonly CWD = '/home/robot';
  readonly files = new Map<string, string>();
  env: string | undefined;
  readonly reads: Array<string | undefined> = [];

  absolute(file: string): string {
    return file.startsWith('/') ? file : `${FakeClientSecrets.CWD}/${file}`;
  }

  async read(file: string | undefined): Promise<string> {
    this.reads.push(file);
    if (file === undefined) {
      const secret = (this.env ?? '').trim();
      if (secret === '')
        throw new ConfigurationError(
          `no client secret: pass --client-secret-file <file> or set ${CLIENT_SECRET_ENV}`,
          'AUTH.CLIENT_SECRET_MISSING',
        );
      return secret;
    }
    const path = this.absolute(file);
    const text = this.files.get(path);
    if (text === undefined) throw unreadable(path, 'does not exist');
    const secret = text.trim();
    if (secret === '') throw unreadable(path, 'is empty');
    return secret;
  }
}

import { ConfigurationError } from '../../../domain/shared/errors';
import { ClientSecrets } from '../../../application/login/ports/client-secrets.port';

/** Client secrets in memory: by file path, and `env` for SKIFF_CLIENT_SECRET. */
export class FakeClientSecrets implements ClientSecrets {
  readonly files = new Map<string, string>();
  env: string | undefined;
  readonly reads: Array<string | undefined> = [];

  absolute(file: string): string {
    return file.startsWith('/') ? file : `/work/${file}`;
  }

  async read(file: string | undefined): Promise<string> {
    this.reads.push(file);
    if (file === undefined) {
      if (this.env === undefined)
        throw new ConfigurationError(
          'no client secret: pass --client-secret-file <file> or set SKIFF_CLIENT_SECRET',
          'AUTH.CLIENT_SECRET_MISSING',
        );
      return this.env;
    }
    const secret = this.files.get(this.absolute(file));
    if (secret === undefined)
      throw new ConfigurationError(
        `the client secret file ${this.absolute(file)} cannot be read: it does not exist`,
        'AUTH.CLIENT_SECRET_UNREADABLE',
      );
    return secret;
  }
}

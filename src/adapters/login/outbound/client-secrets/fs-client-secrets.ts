import { resolve } from 'node:path';
import { CLIENT_SECRET_ENV } from '../../../../domain/login/auth/client-credentials';
import { ConfigurationError } from '../../../../domain/shared/errors';
import { ClientSecrets } from '../../../../application/login/ports/client-secrets.port';
import { readSecretFile } from '../../helpers/secret-file';

/**
 * The secret of a robot's client, from its file (see readSecretFile: a link is followed)
 * or from SKIFF_CLIENT_SECRET; surrounding blanks and the final newline trimmed.
 */
export class FsClientSecrets implements ClientSecrets {
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly cwd: () => string = () => process.cwd(),
  ) {}

  absolute(file: string): string {
    return resolve(this.cwd(), file);
  }

  async read(file: string | undefined): Promise<string> {
    if (file === undefined) {
      const secret = (this.env[CLIENT_SECRET_ENV] ?? '').trim();
      if (secret === '')
        throw new ConfigurationError(
          `no client secret: pass --client-secret-file <file> or set ${CLIENT_SECRET_ENV}`,
          'AUTH.CLIENT_SECRET_MISSING',
        );
      return secret;
    }
    return readSecretFile(this.absolute(file), 'the client secret file', 'AUTH.CLIENT_SECRET_UNREADABLE');
  }
}

import { resolve } from 'node:path';
import { CLIENT_SECRET_ENV } from '../../../../domain/login/auth/client-credentials';
import { ConfigurationError } from '../../../../domain/shared/errors';
import { ClientSecrets } from '../../../../application/login/ports/client-secrets.port';
import { describeFsError } from '../../helpers/atomic-file';
import { readRegularFile, UnsafeFileError } from '../../helpers/no-follow-file';

/** A secret is a line; anything larger than this is not one. */
export const MAX_SECRET_BYTES = 64 * 1024;

const unreadable = (what: string, detail: string) =>
  new ConfigurationError(`the client secret ${what} ${detail}`, 'AUTH.CLIENT_SECRET_UNREADABLE');

/**
 * The secret of a robot's client, from its file (the user's own file, such as a mounted
 * Kubernetes secret, which is a link: followed, unlike skiff's own files) or from
 * SKIFF_CLIENT_SECRET; surrounding blanks and the final newline trimmed.
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
    const path = this.absolute(file);
    let text: string | undefined;
    try {
      // Followed, unlike skiff's own files; a FIFO or device there is refused without waiting on it.
      text = readRegularFile(path, { limit: MAX_SECRET_BYTES, followLink: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (err instanceof UnsafeFileError || code === 'EISDIR')
        throw unreadable(`file ${path}`, 'is not a regular file');
      // Without a code: the size limit's own message.
      throw unreadable(
        `file ${path}`,
        code === undefined ? (err as Error).message : `cannot be read: ${describeFsError(err)}`,
      );
    }
    if (text === undefined) throw unreadable(`file ${path}`, 'does not exist');
    const secret = text.trim();
    if (secret === '') throw unreadable(`file ${path}`, 'is empty');
    return secret;
  }
}

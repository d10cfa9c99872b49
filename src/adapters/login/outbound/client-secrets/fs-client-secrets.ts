import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { CLIENT_SECRET_ENV } from '../../../../domain/login/auth/client-credentials';
import { ConfigurationError } from '../../../../domain/shared/errors';
import { ClientSecrets } from '../../../../application/login/ports/client-secrets.port';
import { describeFsError } from '../../helpers/atomic-file';

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
    let text: string;
    try {
      text = readSmallFile(path);
    } catch (err) {
      if (err instanceof ConfigurationError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw unreadable(
        `file ${path}`,
        code === 'ENOENT' ? 'does not exist' : `cannot be read: ${describeFsError(err)}`,
      );
    }
    const secret = text.trim();
    if (secret === '') throw unreadable(`file ${path}`, 'is empty');
    return secret;
  }
}

function readSmallFile(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw unreadable(`file ${path}`, 'is not a regular file');
    if (stat.size > MAX_SECRET_BYTES) throw unreadable(`file ${path}`, `is larger than ${MAX_SECRET_BYTES} bytes`);
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { safeDomain } from '../../../../domain/login/auth/safe-domain';
import { TokenCacheError } from '../../../../domain/login/auth/auth-errors';
import { BoardCredentialRecord, BoardCredentials } from '../../../../application/login/ports/board-credentials.port';
import { describeFsError, writeFileAtomic } from '../../helpers/atomic-file';
import { readRegularFile, UnsafeFileError } from '../../../shared/helpers/no-follow-file';
import { MAX_CACHE_BYTES } from '../token-cache/fs-token-cache';

/**
 * The board tool's credentials per domain, `<safe_domain>.boards.json` beside the token
 * cache (whose fields are fixed: docs/login-contract.md, "Files"), 0600, written
 * atomically. An unreadable file counts as empty: the next exchange replaces it; but a
 * link or a shared inode where the file belongs is refused (never read through, never
 * chmodded), as for the token cache.
 */
export class FsBoardCredentials implements BoardCredentials {
  constructor(private readonly directory: string) {}

  private path(domain: string): string {
    return join(this.directory, `${safeDomain(domain)}.boards.json`);
  }

  async read(domain: string): Promise<BoardCredentialRecord> {
    const path = this.path(domain);
    let text: string | undefined;
    try {
      text = readRegularFile(path, { limit: MAX_CACHE_BYTES, tighten: true });
    } catch (err) {
      if (err instanceof UnsafeFileError)
        throw new TokenCacheError(path, `cannot be read: ${err.message}`, 'AUTH.CACHE_UNREADABLE');
      return {};
    }
    try {
      const doc = JSON.parse(text ?? '{}') as Record<string, unknown>;
      const record: { boardToken?: string; apiKey?: string } = {};
      if (typeof doc.board_token === 'string') record.boardToken = doc.board_token;
      if (typeof doc.api_key === 'string') record.apiKey = doc.api_key;
      return record;
    } catch {
      return {};
    }
  }

  async write(domain: string, record: BoardCredentialRecord): Promise<void> {
    const path = this.path(domain);
    try {
      writeFileAtomic(path, `${JSON.stringify({ board_token: record.boardToken, api_key: record.apiKey }, null, 2)}\n`);
    } catch (err) {
      throw new TokenCacheError(path, `cannot be written: ${describeFsError(err)}`, 'AUTH.CACHE_UNWRITABLE');
    }
  }

  async remove(domain: string): Promise<void> {
    try {
      unlinkSync(this.path(domain));
    } catch {
      // nothing stored
    }
  }
}

import { ConfigurationError } from '../../../domain/shared/errors';
import { SecretStore } from '../../../application/login/ports/secret-store.port';

/**
 * The OS keyring in memory. `unavailable` makes every call fail as an absent or locked
 * keyring does; `failAfter` lets that many more `set`s succeed, then refuses the next one
 * alone (a keyring refusing in the middle of a write). Held to OsKeyringSecretStore's behaviour by
 * test/contract/login/secret-store.contract.ts.
 */
export class FakeSecretStore implements SecretStore {
  readonly entries = new Map<string, string>();
  unavailable: string | undefined;
  failAfter: number | undefined;

  async set(account: string, secret: string): Promise<void> {
    this.check();
    if (this.failAfter !== undefined && this.failAfter-- === 0) {
      this.failAfter = undefined;
      this.refuse('the keyring refused the entry');
    }
    this.entries.set(account, secret);
  }

  async get(account: string): Promise<string | undefined> {
    this.check();
    return this.entries.get(account);
  }

  async delete(account: string): Promise<boolean> {
    this.check();
    return this.entries.delete(account);
  }

  private check(): void {
    if (this.unavailable !== undefined) this.refuse(this.unavailable);
  }

  private refuse(reason: string): never {
    throw new ConfigurationError(
      `the OS keyring is not available (${reason}): start and unlock it (on Linux a Secret Service such ` +
        'as gnome-keyring-daemon in the desktop session), or keep the tokens in the cache file: ' +
        '`skiff config set --token-store file`',
      'AUTH.KEYRING_UNAVAILABLE',
    );
  }
}

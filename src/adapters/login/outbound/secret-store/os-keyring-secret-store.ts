import type * as Keyring from '@napi-rs/keyring';
import { ConfigurationError } from '../../../../domain/shared/errors';
import { SecretStore } from '../../../../application/login/ports/secret-store.port';

/** The keyring service skiff's entries are filed under. */
export const KEYRING_SERVICE = 'skiff';

/** A keyring call waiting longer (a prompt nobody answers, a stuck D-Bus) is given up. */
const KEYRING_TIMEOUT_MS = 30_000;

/** What a user can do about a keyring that cannot be used. */
const ADVICE =
  'start and unlock it (on Linux a Secret Service such as gnome-keyring-daemon in the desktop session), ' +
  'or keep the tokens in the cache file: `skiff config set --token-store file`';

/** The library's message on one line, bounded (this module stays off the HTTP helpers: the fast path loads it). */
function oneLine(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit)}...` : flat;
}

export function keyringUnavailable(reason: string): ConfigurationError {
  return new ConfigurationError(
    `the OS keyring is not available (${oneLine(reason, 200)}): ${ADVICE}`,
    'AUTH.KEYRING_UNAVAILABLE',
  );
}

/**
 * The OS keyring through @napi-rs/keyring (Secret Service over D-Bus on Linux, pinned so
 * there is no fallback to the kernel keyring; the Keychain; the Credential Manager). The native module is loaded on the first call, so
 * commands that never touch the keyring never load it. Any failure of the platform's
 * store (no D-Bus session, no Secret Service, a locked collection whose prompt cannot
 * be shown, a refusal) is a configuration error saying so and how to use the file; the
 * library's messages name the store's problem, never the secret.
 */
export class OsKeyringSecretStore implements SecretStore {
  private module: typeof Keyring | undefined;

  constructor(private readonly service = KEYRING_SERVICE) {}

  async set(account: string, secret: string): Promise<void> {
    await this.call((entry, signal) => entry.setPassword(secret, signal), account);
  }

  async get(account: string): Promise<string | undefined> {
    return (await this.call((entry, signal) => entry.getPassword(signal), account)) ?? undefined;
  }

  async delete(account: string): Promise<boolean> {
    return this.call((entry, signal) => entry.deleteCredential(signal), account);
  }

  private async call<T>(
    work: (entry: Keyring.AsyncEntry, signal: AbortSignal) => Promise<T>,
    account: string,
  ): Promise<T> {
    try {
      this.module ??= require('@napi-rs/keyring') as typeof Keyring;
    } catch (err) {
      throw keyringUnavailable(`its library cannot be loaded: ${(err as Error).message}`);
    }
    let entry: Keyring.AsyncEntry;
    try {
      // Linux: the Secret Service only (the constructor throws without one). The library would
      // otherwise fall back, silently, to the kernel's keyutils keyring, which forgets everything
      // at reboot: a lost token.
      entry = new this.module.AsyncEntry(this.service, account, { linux: { store: 'secret-service' } });
    } catch (err) {
      throw keyringUnavailable((err as Error).message);
    }
    try {
      return await work(entry, AbortSignal.timeout(KEYRING_TIMEOUT_MS));
    } catch (err) {
      const name = (err as Error).name;
      throw keyringUnavailable(
        name === 'AbortError' || name === 'TimeoutError'
          ? `no answer within ${KEYRING_TIMEOUT_MS / 1000} s`
          : (err as Error).message,
      );
    }
  }
}

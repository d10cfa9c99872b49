export const SECRET_STORE = Symbol('SecretStore');

/**
 * The OS keyring (Secret Service, Keychain, Credential Manager): secrets by account name,
 * under skiff's service. A keyring that is absent, locked or refusing is a
 * ConfigurationError (AUTH.KEYRING_UNAVAILABLE) saying so and naming
 * `skiff config set --token-store file`; never a secret in it.
 */
export interface SecretStore {
  set(account: string, secret: string): Promise<void>;
  /** undefined when there is no such entry. */
  get(account: string): Promise<string | undefined>;
  /** false when there was no such entry. */
  delete(account: string): Promise<boolean>;
}

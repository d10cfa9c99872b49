import { inject, injectable } from 'inversify';
import { TokenCacheError } from '../../../domain/login/auth/auth-errors';
import { TokenStoreKind } from '../../../domain/login/auth/token-store';
import { setInUse } from '../../../domain/login/contexts/contexts';
import { CONFIG_STORE, type ConfigStore } from '../ports/config-store.port';
import { NOTIFIER, type Notifier } from '../ports/notifier.port';
import { TOKEN_CACHE, type TokenCache } from '../ports/token-cache.port';

export interface SetTokenStoreResult {
  readonly context: string;
  /** The domain whose record was moved into the new store, when there was one. */
  readonly moved?: string;
}

/**
 * `config set --token-store keyring|file`: the store of the context in use (created as
 * `local` when none), made current. Its domain's record is moved at once, so the secrets
 * leave (or enter) the file now and a keyring that cannot be used is said now: a failed
 * move changes nothing. A record that cannot be read stays as it is, with a warning (the
 * next sign-in writes the new store).
 */
@injectable()
export class SetTokenStore {
  constructor(
    @inject(CONFIG_STORE) private readonly config: ConfigStore,
    @inject(TOKEN_CACHE) private readonly cache: TokenCache,
    @inject(NOTIFIER) private readonly notifier: Notifier,
  ) {}

  async execute(kind: TokenStoreKind): Promise<SetTokenStoreResult> {
    const changed = setInUse(await this.config.load(), { tokenStore: kind });
    const domain = changed.config.contexts.find((c) => c.name === changed.context)?.domain ?? '';
    let result: SetTokenStoreResult = { context: changed.context };
    try {
      const tokens = await this.cache.read(domain);
      if (tokens !== undefined) {
        await this.cache.write(domain, tokens, kind);
        result = { ...result, moved: domain };
      }
    } catch (err) {
      // A record that cannot be read cannot be moved; a write that fails (the keyring) stops here.
      if (!(err instanceof TokenCacheError) || err.code === 'AUTH.CACHE_UNWRITABLE') throw err;
      if (err.code === 'AUTH.KEYRING_UNAVAILABLE' && kind === 'keyring') throw err;
      this.notifier.warn(`the tokens in place were not moved: ${err.message}`);
    }
    await this.config.save(changed.config);
    return result;
  }
}

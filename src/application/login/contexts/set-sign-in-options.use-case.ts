import { inject, injectable } from 'inversify';
import { setInUse } from '../../../domain/login/contexts/contexts';
import { CONFIG_STORE, type ConfigStore } from '../ports/config-store.port';

/** What `config set --par|--no-par` and `--dpop|--no-dpop` ask: true is `always`, false back to the provider's say. */
export interface SignInOptions {
  readonly par?: boolean;
  readonly dpop?: boolean;
}

/**
 * `config set --par` / `--dpop` (docs/login-contract.md, "Pushed authorization requests",
 * "DPoP"): the context in use (created as `local` when none), made current. `--no-...`
 * removes the setting: the provider's discovery document decides again.
 */
@injectable()
export class SetSignInOptions {
  constructor(@inject(CONFIG_STORE) private readonly store: ConfigStore) {}

  async execute(options: SignInOptions): Promise<{ context: string }> {
    const value = (on: boolean | undefined) =>
      on === undefined ? undefined : on ? ('always' as const) : ('' as const);
    const changed = setInUse(await this.store.load(), { par: value(options.par), dpop: value(options.dpop) });
    await this.store.save(changed.config);
    return { context: changed.context };
  }
}

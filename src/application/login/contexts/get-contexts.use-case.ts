import { inject, injectable } from 'inversify';
import { Context, selectContext } from '../../../domain/login/contexts/contexts';
import { CONFIG_STORE, type ConfigStore } from '../ports/config-store.port';

export interface ContextList {
  readonly contexts: readonly Context[];
  /** The context selection order's choice (current-context, else `local`), if any. */
  readonly current?: string;
}

/** `config get-contexts` and `config current-context`. */
@injectable()
export class GetContexts {
  constructor(@inject(CONFIG_STORE) private readonly store: ConfigStore) {}

  async execute(): Promise<ContextList> {
    const config = await this.store.load();
    return { contexts: config.contexts, current: selectContext(config)?.name };
  }
}

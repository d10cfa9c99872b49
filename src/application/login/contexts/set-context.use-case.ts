import { inject, injectable } from 'inversify';
import { assertUsableDomain } from '../../../domain/login/auth/domain-resolution';
import { Context, ContextChanges, findContext, setContext } from '../../../domain/login/contexts/contexts';
import { CONFIG_STORE, type ConfigStore } from '../ports/config-store.port';

/** `config set-context <name> [--domain] [--auth-url] [--git-url] [--boards-url]`: creates or changes. */
@injectable()
export class SetContext {
  constructor(@inject(CONFIG_STORE) private readonly store: ConfigStore) {}

  async execute(name: string, changes: ContextChanges): Promise<{ context: Context; created: boolean }> {
    if (changes.domain !== undefined) assertUsableDomain(changes.domain, '--domain');
    const before = await this.store.load();
    const after = setContext(before, name, changes);
    await this.store.save(after);
    return { context: findContext(after, name) as Context, created: findContext(before, name) === undefined };
  }
}

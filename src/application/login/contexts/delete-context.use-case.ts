import { inject, injectable } from 'inversify';
import { deleteContext } from '../../../domain/login/contexts/contexts';
import { CONFIG_STORE, type ConfigStore } from '../ports/config-store.port';

/** `config delete-context <name>`: the current-context setting is cleared when it named it. */
@injectable()
export class DeleteContext {
  constructor(@inject(CONFIG_STORE) private readonly store: ConfigStore) {}

  async execute(name: string): Promise<void> {
    await this.store.save(deleteContext(await this.store.load(), name));
  }
}

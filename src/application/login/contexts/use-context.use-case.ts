import { inject, injectable } from 'inversify';
import { useContext } from '../../../domain/login/contexts/contexts';
import { CONFIG_STORE, type ConfigStore } from '../ports/config-store.port';

/** `config use-context <name>`: the context must exist. */
@injectable()
export class UseContext {
  constructor(@inject(CONFIG_STORE) private readonly store: ConfigStore) {}

  async execute(name: string): Promise<void> {
    await this.store.save(useContext(await this.store.load(), name));
  }
}

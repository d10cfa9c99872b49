import { inject, injectable } from 'inversify';
import { SkiffConfig } from '../../../domain/login/contexts/contexts';
import { CONFIG_STORE, type ConfigStore } from '../ports/config-store.port';

/** `config view`: the configuration as stored, and where. */
@injectable()
export class ViewConfig {
  constructor(@inject(CONFIG_STORE) private readonly store: ConfigStore) {}

  async execute(): Promise<{ config: SkiffConfig; text: string; location: string }> {
    const config = await this.store.load();
    return { config, text: this.store.render(config), location: this.store.location() };
  }
}

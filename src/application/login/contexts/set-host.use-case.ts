import { inject, injectable } from 'inversify';
import { assertUsableDomain } from '../../../domain/login/auth/domain-resolution';
import { setHost } from '../../../domain/login/contexts/contexts';
import { ConfigurationError } from '../../../domain/shared/errors';
import { CONFIG_STORE, type ConfigStore } from '../ports/config-store.port';

/** `config set --host <domain>`: the domain of the context in use (created as `local` when none). */
@injectable()
export class SetHost {
  constructor(@inject(CONFIG_STORE) private readonly store: ConfigStore) {}

  async execute(domain: string): Promise<{ context: string }> {
    // An empty host would leave the context in use without a domain, reported as done.
    if (domain === '') {
      throw new ConfigurationError('--host needs a domain: skiff config set --host example.com', 'CONFIG.EMPTY_HOST');
    }
    const changed = setHost(await this.store.load(), assertUsableDomain(domain, '--host'));
    await this.store.save(changed.config);
    return { context: changed.context };
  }
}

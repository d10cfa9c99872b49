import { readFileSync } from 'node:fs';
import { Context, EMPTY_CONFIG, SkiffConfig } from '../../../../domain/login/contexts/contexts';
import { ConfigurationError } from '../../../../domain/shared/errors';
import { ConfigStore } from '../../../../application/login/ports/config-store.port';
import { describeFsError, writeFileAtomic } from '../../helpers/atomic-file';

/** The file's context keys (kebab-case, like the flags of `config set-context`). */
const KEYS = { domain: 'domain', identityProviderUrl: 'auth-url', gitHostUrl: 'git-url', boardsUrl: 'boards-url' } as const;

type Yaml = typeof import('yaml');
const yaml = (): Yaml => require('yaml') as Yaml;

/**
 * Contexts in a kubectl-style YAML file:
 *
 *   current-context: prod
 *   contexts:
 *     - name: prod
 *       context:
 *         domain: example.com
 *         auth-url: https://login.example.com   # optional overrides
 */
export class YamlConfigStore implements ConfigStore {
  constructor(private readonly path: string) {}

  location(): string {
    return this.path;
  }

  async load(): Promise<SkiffConfig> {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_CONFIG;
      throw this.problem(`cannot be read: ${describeFsError(err)}`);
    }
    let doc: unknown;
    try {
      doc = yaml().parse(text);
    } catch (err) {
      throw this.problem(`is not valid YAML (${String((err as Error).message).split('\n')[0]})`);
    }
    return this.decode(doc ?? {});
  }

  async save(config: SkiffConfig): Promise<void> {
    try {
      writeFileAtomic(this.path, this.render(config), 0o600);
    } catch (err) {
      throw this.problem(`cannot be written: ${describeFsError(err)}`);
    }
  }

  render(config: SkiffConfig): string {
    const doc: Record<string, unknown> = {};
    if (config.currentContext) doc['current-context'] = config.currentContext;
    doc.contexts = config.contexts.map((c) => {
      const fields: Record<string, string> = {};
      for (const [field, key] of Object.entries(KEYS)) {
        const value = c[field as keyof typeof KEYS];
        if (value !== undefined && (value !== '' || field === 'domain')) fields[key] = value;
      }
      return { name: c.name, context: fields };
    });
    return yaml().stringify(doc);
  }

  private decode(doc: unknown): SkiffConfig {
    if (typeof doc !== 'object' || Array.isArray(doc) || doc === null) throw this.problem('does not hold a mapping');
    const root = doc as Record<string, unknown>;
    const current = root['current-context'];
    if (current !== undefined && current !== null && typeof current !== 'string') throw this.problem('current-context is not a string');
    const list = root.contexts ?? [];
    if (!Array.isArray(list)) throw this.problem('contexts is not a list');
    const contexts = list.map((entry, i): Context => {
      const item = (entry ?? {}) as Record<string, unknown>;
      if (typeof item.name !== 'string' || item.name === '') throw this.problem(`contexts[${i}] has no name`);
      const fields = (item.context ?? {}) as Record<string, unknown>;
      const context: Record<string, string> = { name: item.name, domain: '' };
      for (const [field, key] of Object.entries(KEYS)) {
        const value = fields[key];
        if (value === undefined || value === null) continue;
        if (typeof value !== 'string') throw this.problem(`${key} of context ${item.name} is not a string`);
        context[field] = value;
      }
      return context as unknown as Context;
    });
    return current ? { currentContext: current as string, contexts } : { contexts };
  }

  private problem(detail: string): ConfigurationError {
    return new ConfigurationError(`configuration file ${this.path} ${detail}: fix or remove it`, 'CONFIG.FILE');
  }
}

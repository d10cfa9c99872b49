import { Context, EMPTY_CONFIG, SkiffConfig } from '../../../../domain/login/contexts/contexts';
import { tokenStoreKind } from '../../../../domain/login/auth/token-store';
import { ConfigurationError } from '../../../../domain/shared/errors';
import { escapedControls, quoted } from '../../../../domain/shared/quoted';
import { ConfigStore } from '../../../../application/login/ports/config-store.port';
import { describeFsError, writeFileAtomic } from '../../helpers/atomic-file';
import { readRegularFile, UnsafeFileError } from '../../../shared/helpers/no-follow-file';
import { parsePlainYaml } from './plain-yaml';

/**
 * A contexts file is a few kilobytes (64 KiB is some 600 contexts). The YAML library takes
 * seconds on a megabyte, and its duplicate-key check grows with the square of a mapping's keys.
 */
const MAX_CONFIG_BYTES = 64 * 1024;
/**
 * A contexts file nests 4 levels. The YAML library recurses once a level, and past some 800
 * the process can die (V8 failing to compile a regular expression on a spent stack).
 */
const MAX_NESTING = 100;

/**
 * An upper bound of the nesting depth of a YAML text, found without parsing it: a block
 * level takes one more column of indentation or an indicator (`- `, `? `, `: `) on its
 * line, a flow level a bracket. Quoted brackets count too, so it may exceed the real depth.
 */
function nestingBound(text: string): number {
  let flow = 0;
  let max = 0;
  for (const line of text.split('\n')) {
    const block = line.length - line.trimStart().length + (line.match(/[-?:](?=\s|$)/g)?.length ?? 0);
    for (const c of line) {
      if (c === '[' || c === '{') max = Math.max(max, block + ++flow);
      else if ((c === ']' || c === '}') && flow > 0) flow--;
    }
    max = Math.max(max, block + flow);
  }
  return max;
}

/** The file's context keys (kebab-case, like the flags of `config set-context`). */
const KEYS = {
  domain: 'domain',
  identityProviderUrl: 'auth-url',
  gitHostUrl: 'git-url',
  boardsUrl: 'boards-url',
  tokenStore: 'token-store',
  par: 'par',
  dpop: 'dpop',
} as const;

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
 *
 * The file may be a symbolic link for reading: dotfile managers (stow, chezmoi,
 * home-manager) keep config.yaml as one, and reading grants nothing (no mode is
 * changed, what was opened must be a regular file, it holds no secret). Writing
 * never goes through a link: the rename would replace the link with a plain file
 * (breaking the user's dotfile setup) and a write through it could land anywhere,
 * so a command that changes the contexts refuses and says what to do.
 */
export class YamlConfigStore implements ConfigStore {
  constructor(private readonly path: string) {}

  location(): string {
    return this.path;
  }

  async load(): Promise<SkiffConfig> {
    let text: string | undefined;
    try {
      text = readRegularFile(this.path, { limit: MAX_CONFIG_BYTES, followLink: true });
    } catch (err) {
      throw this.unusable('read', err);
    }
    if (text === undefined) return EMPTY_CONFIG;
    if (nestingBound(text) > MAX_NESTING) throw this.problem(`nests deeper than ${MAX_NESTING} levels`);
    let doc: unknown;
    try {
      doc = parsePlainYaml(text) ?? yaml().parse(text);
    } catch (err) {
      // The library's first line, which may quote the file's own characters.
      const first = String((err as Error).message).split('\n')[0];
      throw this.problem(`is not valid YAML (${escapedControls(first.slice(0, 200))})`);
    }
    return this.decode(doc ?? {});
  }

  async save(config: SkiffConfig): Promise<void> {
    try {
      writeFileAtomic(this.path, this.render(config), 0o600);
    } catch (err) {
      throw this.unusable('written', err);
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
    if (current !== undefined && current !== null && typeof current !== 'string')
      throw this.problem('current-context is not a string');
    const list = root.contexts ?? [];
    if (!Array.isArray(list)) throw this.problem('contexts is not a list');
    const contexts = list.map((entry, i): Context => {
      const item = (entry ?? {}) as Record<string, unknown>;
      if (typeof item.name !== 'string' || item.name === '') throw this.problem(`contexts[${i}] has no name`);
      const fields = (item.context ?? {}) as Record<string, unknown>;
      if (typeof fields !== 'object' || Array.isArray(fields))
        throw this.problem(`the context of ${quoted(item.name)} is not a mapping`);
      const context: Record<string, string> = { name: item.name, domain: '' };
      for (const [field, key] of Object.entries(KEYS)) {
        const value = fields[key];
        if (value === undefined || value === null) continue;
        if (typeof value !== 'string') throw this.problem(`${key} of context ${quoted(item.name)} is not a string`);
        context[field] = value;
      }
      if (context.tokenStore !== undefined) {
        try {
          tokenStoreKind(context.tokenStore, `token-store of context ${quoted(item.name)}`);
        } catch (err) {
          throw this.problem((err as Error).message);
        }
      }
      for (const key of ['par', 'dpop'] as const) {
        if (context[key] !== undefined && context[key] !== 'always')
          throw this.problem(
            `${key} of context ${quoted(item.name)} is ${quoted(context[key])}, not always (or absent)`,
          );
      }
      return context as unknown as Context;
    });
    return current ? { currentContext: current as string, contexts } : { contexts };
  }

  private unusable(verb: 'read' | 'written', err: unknown): ConfigurationError {
    if (err instanceof UnsafeFileError && err.found === 'symlink') {
      return new ConfigurationError(
        `configuration file ${this.path} is a symbolic link, which skiff reads but never writes through: ` +
          'make the change in the file it points to, or replace the link with a copy of that file',
        'CONFIG.FILE',
      );
    }
    const detail = `cannot be ${verb}: ${describeFsError(err)}`;
    // An unsafe-file message ends with what to do already.
    return err instanceof UnsafeFileError
      ? new ConfigurationError(`configuration file ${this.path} ${detail}`, 'CONFIG.FILE')
      : this.problem(detail);
  }

  private problem(detail: string): ConfigurationError {
    return new ConfigurationError(`configuration file ${this.path} ${detail}: fix or remove it`, 'CONFIG.FILE');
  }
}

import { statSync } from 'node:fs';
import type { Document } from 'yaml';
import { KubeUser } from '../../../../domain/login/kube/kube-user';
import { ConfigurationError } from '../../../../domain/shared/errors';
import { KubeConfig, KubeConfigChange } from '../../../../application/login/ports/kube-config.port';
import { describeFsError, writeFileAtomic } from '../../helpers/atomic-file';
import { readRegularFile, UnsafeFileError } from '../../../shared/helpers/no-follow-file';

type Yaml = typeof import('yaml');
const yaml = (): Yaml => require('yaml') as Yaml;

/** Kubeconfigs with many clusters and embedded certificates run to hundreds of kilobytes. */
const MAX_KUBECONFIG_BYTES = 16 * 1024 * 1024;

/**
 * The kubeconfig as a YAML document, edited in place so comments, order, quoting and
 * the other entries stay as they were. `files` is kubectl's list ($KUBECONFIG split,
 * else ~/.kube/config): the entry is changed in the file that holds it, else added to
 * the first one, which is where `kubectl config set-credentials` puts a new user.
 * Reading follows a symbolic link (dotfile managers); writing never goes through one.
 */
export class YamlKubeConfig implements KubeConfig {
  constructor(private readonly files: readonly string[]) {}

  render(user: KubeUser): string {
    return yaml().stringify([user], { indentSeq: false, lineWidth: 0 });
  }

  async upsertUser(user: KubeUser): Promise<{ path: string; change: KubeConfigChange }> {
    const loaded = this.files.map((path) => ({ path, text: this.read(path) }));
    const target =
      loaded.find((f) => f.text !== undefined && this.parse(f.path, f.text).hasUser(user.name)) ?? loaded[0];
    const doc = this.parse(target.path, target.text);
    const change = doc.upsert(user);
    if (change !== 'unchanged') this.write(target.path, doc.text());
    return { path: target.path, change };
  }

  private read(path: string): string | undefined {
    try {
      return readRegularFile(path, { limit: MAX_KUBECONFIG_BYTES, followLink: true });
    } catch (err) {
      throw this.problem(path, `cannot be read: ${describeFsError(err)}`);
    }
  }

  private write(path: string, text: string): void {
    let mode = 0o600;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      // a new file: 0600, it may come to hold other credentials
    }
    try {
      writeFileAtomic(path, text, mode);
    } catch (err) {
      if (err instanceof UnsafeFileError && err.found === 'symlink') {
        throw new ConfigurationError(
          `kubeconfig ${path} is a symbolic link, which skiff never writes through: ` +
            'run `skiff auth setup-kube --print` and add the entry to the file it points to',
          'KUBE.CONFIG_FILE',
        );
      }
      throw this.problem(path, `cannot be written: ${describeFsError(err)}`);
    }
  }

  private parse(path: string, text: string | undefined): KubeDocument {
    const { Document: Doc, parseDocument } = yaml();
    // kubectl writes block sequences flush with their key; keep whichever style the file has.
    const indentSeq = text !== undefined && /:[ \t]*\r?\n +- /.test(text) && !/^[^\s#][^\n]*:[ \t]*\r?\n- /m.test(text);
    const doc =
      text === undefined || text.trim() === '' ? new Doc({ apiVersion: 'v1', kind: 'Config' }) : parseDocument(text);
    if (doc.errors.length > 0) {
      throw this.problem(path, `is not valid YAML (${doc.errors[0].message.split('\n')[0]})`);
    }
    if (!yaml().isMap(doc.contents)) throw this.problem(path, 'does not hold a mapping');
    const users = doc.get('users');
    if (users !== undefined && users !== null && !yaml().isSeq(users))
      throw this.problem(path, 'has a `users` that is not a list');
    return new KubeDocument(doc, indentSeq);
  }

  private problem(path: string, detail: string): ConfigurationError {
    return new ConfigurationError(
      `kubeconfig ${path} ${detail}: fix it, or run \`skiff auth setup-kube --print\` and add the entry yourself`,
      'KUBE.CONFIG_FILE',
    );
  }
}

/** One parsed kubeconfig and the one edit skiff makes to it. */
class KubeDocument {
  constructor(
    private readonly doc: Document,
    private readonly indentSeq: boolean,
  ) {}

  private index(name: string): number {
    const users = this.doc.get('users') as { items?: unknown[] } | undefined;
    return (users?.items ?? []).findIndex((item) => yaml().isMap(item) && item.get('name') === name);
  }

  hasUser(name: string): boolean {
    return this.index(name) >= 0;
  }

  upsert(user: KubeUser): KubeConfigChange {
    const { isSeq } = yaml();
    const node = this.doc.createNode(user);
    let users = this.doc.get('users');
    if (!isSeq(users)) {
      this.doc.set('users', this.doc.createNode([]));
      users = this.doc.get('users');
    }
    const items = (users as { items: unknown[] }).items;
    const at = this.index(user.name);
    if (at < 0) {
      items.push(node);
      return 'added';
    }
    const old = (items[at] as { toJSON(): unknown }).toJSON();
    if (JSON.stringify(old) === JSON.stringify(node.toJSON())) return 'unchanged';
    items[at] = node;
    return 'updated';
  }

  text(): string {
    return this.doc.toString({ indentSeq: this.indentSeq, lineWidth: 0 });
  }
}

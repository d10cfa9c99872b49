import { readdirSync } from 'node:fs';
import { CachedDomains } from '../../../../application/login/ports/cached-domains.port';

/**
 * The cache files in the auth directory: `<safe_domain>.json`, not the board
 * credentials (`.boards.json`) beside them. A file's stem locates it again (safeDomain
 * leaves a safe domain as it is). Links and other non-files are listed too, so that
 * `auth status` reports them as unusable rather than hiding them.
 */
export class FsCachedDomains implements CachedDomains {
  constructor(private readonly directory: string) {}

  async list(): Promise<string[]> {
    let names: string[];
    try {
      names = readdirSync(this.directory);
    } catch {
      return [];
    }
    return names
      .filter((name) => name.endsWith('.json') && !name.endsWith('.boards.json') && name !== '.json')
      .map((name) => name.slice(0, -'.json'.length))
      .sort();
  }
}

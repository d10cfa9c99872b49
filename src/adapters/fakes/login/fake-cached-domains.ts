import { CachedDomains } from '../../../application/login/ports/cached-domains.port';
import { FakeTokenCache } from './fake-token-cache';

/** The domains of a FakeTokenCache's records. */
export class FakeCachedDomains implements CachedDomains {
  constructor(private readonly cache: FakeTokenCache) {}

  async list(): Promise<string[]> {
    return [...this.cache.records.keys()].sort();
  }
}

/**
 * The cache file name of a domain: every '/', '\' and ':' replaced by '_',
 * `default` for the empty domain, then `.json`.
 */
export function safeDomain(domain: string): string {
  return domain === '' ? 'default' : domain.replace(/[/\\:]/g, '_');
}

export function cacheFileName(domain: string): string {
  return `${safeDomain(domain)}.json`;
}

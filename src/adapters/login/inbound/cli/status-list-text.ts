import { DomainStatus } from '../../../../domain/login/auth/status-list';
import { statusLines } from './status-text';

/**
 * `auth status` over every domain: a heading per domain (the active one marked), its
 * facts indented. The active domain alone (the common case) reads as it always has.
 */
export function statusListLines(list: readonly DomainStatus[]): string[] {
  if (list.length === 1) return statusLines(list[0]);
  const lines: string[] = [];
  for (const [i, entry] of list.entries()) {
    if (i > 0) lines.push('');
    lines.push(entry.active ? `${entry.name} (active)` : entry.name);
    for (const line of statusLines(entry)) lines.push(`  ${line}`);
  }
  return lines;
}

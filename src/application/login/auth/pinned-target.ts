import { AuthScope } from './auth-scopes';
import { AuthTarget } from './auth-target';

/**
 * The flags a credential helper written into another tool's configuration (kubectl's,
 * git's) runs skiff with, so it keeps answering for this sign-in whatever the current
 * context becomes: what the user passed, else the active context by name (its service
 * URLs come with it), else the resolved domain.
 */
export function pinnedTarget(target: AuthTarget, scope: AuthScope, domain: string): string[] {
  if (target.context) return ['--context', target.context];
  if (target.domain) return ['--domain', domain];
  if (scope.context !== undefined) return ['--context', scope.context.name];
  return ['--domain', domain];
}

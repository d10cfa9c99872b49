import { escapedControls } from '../../../../domain/shared/quoted';
import { formatUtc, StatusReport } from '../../../../domain/login/auth/status-report';

/** `auth status` as text: the same facts as `--json`. */
export function statusLines(report: StatusReport): string[] {
  if (!report.loggedIn) {
    const lines = ['Not logged in: run `skiff auth login`.'];
    if (report.problem !== undefined) lines.push(`(${report.problem})`);
    return lines;
  }
  const expiry = formatUtc(new Date(report.expiresAt));
  const lines = [
    // The e-mail of the id token: the identity provider's text (quoted.ts).
    `Logged in as ${escapedControls(report.identity)}`,
    report.expired ? `Token expired at ${expiry}` : `Token valid until ${expiry}`,
  ];
  if (report.refreshOnNextUse) lines.push('It will be refreshed automatically on next use.');
  lines.push(`Domain: ${report.domain}`, `Git token: ${report.gitToken ? 'stored' : 'not stored'}`);
  if (report.scopes !== null) lines.push(`Scopes: ${report.scopes.join(' ')}`);
  if (report.signIn === 'client-credentials') lines.push('Signed in with: client credentials');
  if (report.signIn === 'token-exchange') lines.push('Signed in with: token exchange');
  const { kind, path } = report.tokenStore;
  lines.push(
    kind === 'keyring' ? `Token store: keyring (the rest of the record in ${path})` : `Token store: ${kind} ${path}`,
  );
  return lines;
}

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A home for the read paths' tests (entry/auth-read.ts, entry/git-credential-read.ts): two
 * contexts, `prod` (current) on prod.test and `dev` on dev.test, each with a valid record.
 */
export class ReadPathHome {
  readonly root = mkdtempSync(join(tmpdir(), 'skiff-read-path-'));
  readonly env: NodeJS.ProcessEnv = {
    HOME: this.root,
    XDG_DATA_HOME: join(this.root, 'data'),
    XDG_CONFIG_HOME: join(this.root, 'config'),
  };
  readonly authDir = join(this.root, 'data', 'skiff', 'auth');
  readonly configFile = join(this.root, 'config', 'skiff', 'config.yaml');

  constructor() {
    mkdirSync(this.authDir, { recursive: true, mode: 0o700 });
    mkdirSync(join(this.root, 'config', 'skiff'), { recursive: true, mode: 0o700 });
    writeFileSync(
      this.configFile,
      'current-context: prod\ncontexts:\n  - name: prod\n    context:\n      domain: prod.test\n  - name: dev\n    context:\n      domain: dev.test\n',
    );
    this.record('prod.test');
    this.record('dev.test');
  }

  /** A valid record for `domain` (its access token `<domain>-access`), with `fields` over it. */
  record(domain: string, fields: Record<string, string> = {}): void {
    const record = {
      access_token: `${domain}-access`,
      refresh_token: 'r',
      expires_at: '2099-01-01T00:00:00Z',
      domain,
      ...fields,
    };
    writeFileSync(join(this.authDir, `${domain}.json`), JSON.stringify(record), { mode: 0o600 });
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

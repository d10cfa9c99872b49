import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetToken } from '../../application/login/auth/get-token.use-case';
import { Status } from '../../application/login/auth/status.use-case';
import { errorReport } from '../../adapters/shared/inbound/cli/error-report';
import { runGuarded } from '../../adapters/shared/inbound/cli/unfinished-work';
import { statusLines } from '../../adapters/login/inbound/cli/status-text';
import { authPaths } from './auth-paths';
import { buildContainer } from '../shared/container';

/** A call the fast path understands exactly; anything else goes through oclif. */
export interface FastAuthCall {
  readonly verb: 'token' | 'status';
  readonly domain?: string;
  readonly context?: string;
  readonly json: boolean;
}

/**
 * The fast start of `skiff auth token` and `skiff auth status` (bundled as
 * dist/auth.bundle.js and called by bin/run.js without loading oclif): scripts call
 * them often. Only `--domain X`, `--context X` (also `--flag=X`) and, for status,
 * `--json` are understood, each at most once; help, `--env` and mistakes return
 * undefined and oclif handles them.
 */
export function parseAuthArgs(argv: readonly string[]): FastAuthCall | undefined {
  const [verb, ...rest] = argv;
  if (verb !== 'token' && verb !== 'status') return undefined;
  const values: Record<string, string> = {};
  let json = false;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--json' && verb === 'status' && !json) {
      json = true;
      continue;
    }
    const match = /^--(domain|context)(?:=(.*))?$/.exec(rest[i]);
    if (match === null || match[1] in values) return undefined;
    const value = match[2] ?? rest[++i];
    if (value === undefined || value === '' || value.startsWith('-')) return undefined;
    values[match[1]] = value;
  }
  return { verb, domain: values.domain, context: values.context, json };
}

function print(stream: NodeJS.WriteStream, lines: readonly string[]): void {
  stream.write(`${lines.join('\n')}\n`);
}

/**
 * Runs the call and sets its kind's exit code; output matches the oclif
 * commands', and so does the guard against work left pending on an empty loop.
 */
export function runAuth(call: FastAuthCall): Promise<void> {
  return runGuarded(`auth ${call.verb}`, () => answer(call));
}

async function answer(call: FastAuthCall): Promise<void> {
  const target = { domain: call.domain, context: call.context };
  try {
    const container = buildContainer({ login: authPaths() });
    if (call.verb === 'token') {
      print(process.stdout, [await container.get(GetToken).execute(target)]);
    } else {
      const report = await container.get(Status).execute(target);
      print(process.stdout, call.json ? [JSON.stringify(report, null, 2)] : statusLines(report));
    }
  } catch (err) {
    const report = errorReport(err);
    if (call.json) print(process.stdout, [JSON.stringify({ error: report }, null, 2)]);
    else print(process.stderr, [`skiff: ${report.message}`]);
    process.exitCode = report.exitCode;
  }
}

/**
 * Build step (scripts/bundle.js): runs both calls once against a throw-away home so
 * the V8 code cache written next to the bundle holds the compiled code of this
 * path (YAML parsing, the container, the cache read), not only the module tops.
 */
export async function warmUp(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-warm-'));
  try {
    const paths = { authDir: join(dir, 'auth'), configFile: join(dir, 'config.yaml') };
    mkdirSync(paths.authDir, { recursive: true });
    writeFileSync(
      paths.configFile,
      'current-context: local\ncontexts:\n  - name: local\n    context:\n      domain: warm.test\n',
    );
    const record = { access_token: 'a', refresh_token: '', expires_at: '2099-01-01T00:00:00Z', domain: 'warm.test' };
    writeFileSync(join(paths.authDir, 'warm.test.json'), JSON.stringify(record));
    const container = buildContainer({ login: paths });
    await container.get(GetToken).execute({});
    statusLines(await container.get(Status).execute({}));
    errorReport(new Error('warm'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

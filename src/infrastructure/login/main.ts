// The lite build: inversify's ES module build imports it too, so the bundle holds one
// copy of the polyfill, not two.
import 'reflect-metadata/lite';
import { mkdtempSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { GetToken } from '../../application/login/auth/get-token.use-case';
import { KubeCredential } from '../../application/login/auth/kube-credential.use-case';
import { Status } from '../../application/login/auth/status.use-case';
import { StatusAll } from '../../application/login/auth/status-all.use-case';
import { statusListLines } from '../../adapters/login/inbound/cli/status-list-text';
import { errorReport } from '../../adapters/shared/inbound/cli/error-report';
import { runGuarded } from '../../adapters/shared/inbound/cli/unfinished-work';
import { statusLines } from '../../adapters/login/inbound/cli/status-text';
import { authPaths } from './auth-paths';
import { buildContainer } from '../shared/container';
import { makeDirs } from '../../adapters/shared/helpers/make-dirs';

/** A call the fast path understands exactly; anything else goes through oclif. */
export interface FastAuthCall {
  readonly verb: 'token' | 'status' | 'kube-credential';
  readonly domain?: string;
  readonly context?: string;
  readonly json: boolean;
}

/**
 * The fast start of `skiff auth token|kube-credential|status` (bundled as
 * dist/auth.bundle.js and called by bin/run.js without loading oclif): scripts call
 * them often. Only `--domain X`, `--context X` (also `--flag=X`) and, for status,
 * `--json` are understood, each at most once; help, `--env` and mistakes return
 * undefined and oclif handles them.
 */
export function parseAuthArgs(argv: readonly string[]): FastAuthCall | undefined {
  const [verb, ...rest] = argv;
  if (verb !== 'token' && verb !== 'status' && verb !== 'kube-credential') return undefined;
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

/**
 * Writes straight to the file descriptor: process.stdout and process.stderr would
 * first load Node's stream and socket modules, a few milliseconds for one line.
 * A non-blocking descriptor that is full (EAGAIN) gets the rest through the stream.
 */
function print(fd: 1 | 2, lines: readonly string[]): void {
  const bytes = Buffer.from(`${lines.join('\n')}\n`);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      (fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(offset));
      return;
    }
  }
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
      print(1, [await container.get(GetToken).execute(target)]);
    } else if (call.verb === 'kube-credential') {
      const execInfo = process.env.KUBERNETES_EXEC_INFO;
      print(1, [JSON.stringify(await container.get(KubeCredential).execute({ target, execInfo }))]);
    } else if (call.domain === undefined) {
      const list = await container.get(StatusAll).execute(target);
      print(1, call.json ? [JSON.stringify(list, null, 2)] : statusListLines(list));
    } else {
      const report = await container.get(Status).execute(target);
      print(1, call.json ? [JSON.stringify(report, null, 2)] : statusLines(report));
    }
  } catch (err) {
    const report = errorReport(err);
    if (call.json) print(1, [JSON.stringify({ error: report }, null, 2)]);
    else print(2, [`skiff: ${report.message}`]);
    process.exitCode = report.exitCode;
  }
}

/**
 * Build step (scripts/bundle.js): runs both calls once against a throw-away home so
 * the V8 code cache written next to the bundle holds the compiled code of this
 * path (YAML parsing, the container, the cache read), not only the module tops.
 */
export async function warmUp(): Promise<void> {
  const { tmpdir } = require('node:os') as typeof import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'skiff-warm-'));
  try {
    const paths = { authDir: join(dir, 'auth'), configFile: join(dir, 'config.yaml') };
    makeDirs(paths.authDir, 0o777);
    writeFileSync(
      paths.configFile,
      'current-context: local\ncontexts:\n  - name: local\n    context:\n      domain: warm.test\n',
    );
    const record = { access_token: 'a', refresh_token: '', expires_at: '2099-01-01T00:00:00Z', domain: 'warm.test' };
    writeFileSync(join(paths.authDir, 'warm.test.json'), JSON.stringify(record));
    const container = buildContainer({ login: paths });
    await container.get(GetToken).execute({});
    await container.get(KubeCredential).execute({ target: {}, execInfo: undefined });
    statusLines(await container.get(Status).execute({ domain: 'warm.test' }));
    statusListLines(await container.get(StatusAll).execute({}));
    errorReport(new Error('warm'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

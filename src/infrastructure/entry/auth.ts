// The lite build: inversify's ES module build imports it too, so the bundle holds one
// copy of the polyfill, not two.
import 'reflect-metadata/lite';
import { writeSync } from 'node:fs';
import { GetToken } from '../../application/login/auth/get-token.use-case';
import { GitCredential } from '../../application/login/auth/git-credential.use-case';
import { GIT_CREDENTIAL_OPERATIONS, type GitCredentialOperation } from '../../domain/login/git/git-credential';
import { KubeCredential } from '../../application/login/auth/kube-credential.use-case';
import { Status } from '../../application/login/auth/status.use-case';
import { StatusAll } from '../../application/login/auth/status-all.use-case';
import { readGitCredentialRequest } from '../../adapters/login/inbound/cli/git-credential-input';
import { statusListLines } from '../../adapters/login/inbound/cli/status-list-text';
import { errorReport } from '../../adapters/shared/inbound/cli/error-report';
import { runGuarded } from '../../adapters/shared/inbound/cli/unfinished-work';
import { statusLines } from '../../adapters/login/inbound/cli/status-text';
import { TARGET_FLAGS } from '../../adapters/login/inbound/cli/target-flags';
import { parseFastArgv } from '../../adapters/shared/inbound/cli/fast-argv';
import { FlagSpecs, JSON_FLAG } from '../../adapters/shared/inbound/cli/flag-specs';
import { authPaths } from '../login/auth-paths';
import { buildContainer } from '../shared/container';

/**
 * The verbs of the fast path and the flags of each, as its command has them:
 * AuthCommand builds its baseFlags from the same table, and `auth token` and `auth status` have
 * oclif's `--json` (test/infrastructure/entry/auth-flags.test.ts holds the two together).
 */
export const FAST_AUTH_FLAGS = {
  token: { ...TARGET_FLAGS, json: JSON_FLAG },
  'kube-credential': TARGET_FLAGS,
  status: { ...TARGET_FLAGS, json: JSON_FLAG },
  'git-credential': TARGET_FLAGS,
} as const;

type FastVerb = keyof typeof FAST_AUTH_FLAGS;

const isFastVerb = (verb: string | undefined): verb is FastVerb =>
  verb !== undefined && Object.hasOwn(FAST_AUTH_FLAGS, verb);

interface FastCall {
  readonly domain?: string;
  readonly context?: string;
  readonly json: boolean;
}

/** A call the fast path understands exactly; anything else goes through oclif. */
export type FastAuthCall =
  | (FastCall & { readonly verb: Exclude<FastVerb, 'git-credential'> })
  | (FastCall & { readonly verb: 'git-credential'; readonly operation: GitCredentialOperation });

const isGitOperation = (word: string | undefined): word is GitCredentialOperation =>
  (GIT_CREDENTIAL_OPERATIONS as readonly (string | undefined)[]).includes(word);

/**
 * The fast start of `skiff auth token|kube-credential|status|git-credential` (bundled as
 * dist/auth.bundle.js and called by bin/run.js without loading oclif): scripts, kubectl
 * and git call them often. The commands' flags in their plain forms only (fast-argv.ts);
 * git-credential's operation last, as git appends it to the helper line `auth setup-git`
 * writes (`auth git-credential --context prod get`). Help, `--env` and mistakes return
 * undefined and oclif handles them.
 */
export function parseAuthArgs(argv: readonly string[]): FastAuthCall | undefined {
  const [verb, ...rest] = argv;
  if (!isFastVerb(verb)) return undefined;
  if (verb !== 'git-credential') {
    const call = fastFlags(verb, rest);
    return call && { verb, ...call };
  }
  const operation = rest.pop();
  if (!isGitOperation(operation)) return undefined;
  const call = fastFlags(verb, rest);
  return call && { verb, operation, ...call };
}

function fastFlags(verb: FastVerb, argv: readonly string[]): FastCall | undefined {
  const table: FlagSpecs = FAST_AUTH_FLAGS[verb];
  const flags: { domain?: string; context?: string; json?: true } | undefined = parseFastArgv(table, argv);
  return flags && { domain: flags.domain, context: flags.context, json: flags.json === true };
}

/**
 * Writes straight to the file descriptor: process.stdout and process.stderr would
 * first load Node's stream and socket modules, a few milliseconds for one line.
 * A non-blocking descriptor that is full (EAGAIN) gets the rest through the stream.
 */
function print(fd: 1 | 2, lines: readonly string[]): void {
  write(fd, `${lines.join('\n')}\n`);
}

function write(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text);
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
    if (call.verb === 'token' && call.json) {
      print(1, [JSON.stringify(await container.get(GetToken).details(target), null, 2)]);
    } else if (call.verb === 'token') {
      print(1, [await container.get(GetToken).execute(target)]);
    } else if (call.verb === 'git-credential') {
      const reply = await container
        .get(GitCredential)
        .execute({ target, operation: call.operation, request: await readGitCredentialRequest() });
      if (reply !== '') write(1, reply);
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

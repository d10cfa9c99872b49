// The lite build: inversify's ES module build imports it too, so the bundle holds one
// copy of the polyfill, not two.
import 'reflect-metadata/lite';
import { writeSync } from 'node:fs';
import type * as GetTokenModule from '../../application/login/auth/get-token.use-case';
import type * as GitCredentialModule from '../../application/login/auth/git-credential.use-case';
import { GIT_CREDENTIAL_OPERATIONS, type GitCredentialOperation } from '../../domain/login/git/git-credential';
import type * as KubeCredentialModule from '../../application/login/auth/kube-credential.use-case';
import type * as StatusModule from '../../application/login/auth/status.use-case';
import type * as StatusAllModule from '../../application/login/auth/status-all.use-case';
import type * as GitInput from '../../adapters/login/inbound/cli/git-credential-input';
import type * as StatusListText from '../../adapters/login/inbound/cli/status-list-text';
import { errorReport } from '../../adapters/shared/inbound/cli/error-report';
import { runGuarded } from '../../adapters/shared/inbound/cli/unfinished-work';
import type * as StatusText from '../../adapters/login/inbound/cli/status-text';
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
 * `exit` (bin/run.js): the process ends as soon as the answer is written (see watchStreams).
 */
export async function runAuth(call: FastAuthCall, options: { readonly exit?: boolean } = {}): Promise<void> {
  const streams = options.exit === true ? watchStreams() : undefined;
  await runGuarded(`auth ${call.verb}`, () => answer(call));
  if (streams !== undefined && !streams.made()) process.exit();
}

/**
 * After the last callback Node still runs what V8 scheduled (a young-generation
 * collection, as a task) and tears the heap down: about 3 ms of a ~50 ms command
 * (docs/performance.md, "The login flow"). process.exit skips both. It would also cut
 * short a write still queued in process.stdout or process.stderr (a pipe's writes are
 * asynchronous), so it is taken only when neither stream was made: the answer went
 * out with writeSync. Node makes the two on first access, through getters on process;
 * these notice that access.
 */
function watchStreams(): { made(): boolean } {
  let made = false;
  for (const name of ['stdout', 'stderr'] as const) {
    const node = Object.getOwnPropertyDescriptor(process, name);
    if (node?.get === undefined) {
      made = true; // already a value: treat it as in use
      continue;
    }
    const get = node.get;
    Object.defineProperty(process, name, {
      ...node,
      get() {
        made = true;
        return get.call(process);
      },
    });
  }
  return { made: () => made };
}

// Each verb loads only its own use case (and what that imports): the bundle's other modules
// are never run.
async function answer(call: FastAuthCall): Promise<void> {
  const target = { domain: call.domain, context: call.context };
  try {
    const container = buildContainer({ login: authPaths() });
    if (call.verb === 'token') {
      const { GetToken } = require('../../application/login/auth/get-token.use-case') as typeof GetTokenModule;
      const getToken = container.get(GetToken);
      if (call.json) print(1, [JSON.stringify(await getToken.details(target), null, 2)]);
      else print(1, [await getToken.execute(target)]);
    } else if (call.verb === 'git-credential') {
      const { GitCredential } =
        require('../../application/login/auth/git-credential.use-case') as typeof GitCredentialModule;
      const { readGitCredentialRequest } =
        require('../../adapters/login/inbound/cli/git-credential-input') as typeof GitInput;
      const reply = await container
        .get(GitCredential)
        .execute({ target, operation: call.operation, request: await readGitCredentialRequest() });
      if (reply !== '') write(1, reply);
    } else if (call.verb === 'kube-credential') {
      const { KubeCredential } =
        require('../../application/login/auth/kube-credential.use-case') as typeof KubeCredentialModule;
      const execInfo = process.env.KUBERNETES_EXEC_INFO;
      print(1, [JSON.stringify(await container.get(KubeCredential).execute({ target, execInfo }))]);
    } else if (call.domain === undefined) {
      const { StatusAll } = require('../../application/login/auth/status-all.use-case') as typeof StatusAllModule;
      const { statusListLines } = require('../../adapters/login/inbound/cli/status-list-text') as typeof StatusListText;
      const list = await container.get(StatusAll).execute(target);
      print(1, call.json ? [JSON.stringify(list, null, 2)] : statusListLines(list));
    } else {
      const { Status } = require('../../application/login/auth/status.use-case') as typeof StatusModule;
      const { statusLines } = require('../../adapters/login/inbound/cli/status-text') as typeof StatusText;
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

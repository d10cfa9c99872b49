import { parseAuthArgs } from '../../adapters/login/inbound/cli/fast-auth-args';
import { readGitCredentialRequest } from '../../adapters/login/inbound/cli/git-credential-input';
import { watchStreams, write } from '../../adapters/shared/inbound/cli/fd-output';
import type * as FailureOutput from '../../adapters/shared/inbound/cli/failure-output';
import { SystemClock } from '../../adapters/shared/outbound/clock/system-clock';
import { cachedGitCredential, validCachedTokens } from '../../application/login/auth/cached-token';
import { tokenDetails } from '../../domain/login/auth/token-details';
import { execCredential, parseExecInfo } from '../../domain/login/kube/exec-credential';
import { authPaths } from '../login/auth-paths';
import { tokenFiles } from '../login/token-files';

/**
 * The read path of `skiff auth token`, `auth kube-credential` and `auth git-credential`
 * (bundled as dist/auth-read.bundle.js, tried first by bin/run.js): when the cache holds
 * what the call needs, the answer comes from the contexts file and the cache file alone,
 * with no container and no inversify, which cost more than Node's start allows these
 * (docs/performance.md, "The login flow"). Undefined for anything else (a refresh due, no
 * record, a notice to give, any error, any other call): the auth bundle then answers it in
 * full, errors included, so each message has one source. The output as the commands write
 * it; `gitRequest` is what git wrote on stdin, for git-credential.
 */
export async function cachedAnswer(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  gitRequest = '',
): Promise<string | undefined> {
  const call = parseAuthArgs(argv);
  if (call === undefined || call.verb === 'status') return undefined;
  const target = { domain: call.domain, context: call.context };
  try {
    // kubectl's request is judged first, as KubeCredential does: one skiff cannot serve fails in full.
    const info = call.verb === 'kube-credential' ? parseExecInfo(env.KUBERNETES_EXEC_INFO) : undefined;
    const files = tokenFiles(authPaths(env));
    const ports = { config: files.configStore, cache: files.tokenCache, clock: new SystemClock() };
    if (call.verb === 'git-credential')
      return await cachedGitCredential(ports, { target, operation: call.operation, request: gitRequest });
    const found = await validCachedTokens(ports, target);
    if (found === undefined) return undefined;
    const { scope, tokens } = found;
    if (info !== undefined) return `${JSON.stringify(execCredential(info, tokens.accessToken, tokens.expiresAt))}\n`;
    if (call.json)
      return `${JSON.stringify(tokenDetails(tokens, files.tokenCache.store(scope.cacheDomain)), null, 2)}\n`;
    return `${tokens.accessToken}\n`;
  } catch {
    return undefined;
  }
}

/** What the auth bundle needs to answer a call this path could not: git's request, already read from stdin. */
export interface HandOver {
  readonly gitRequest?: string;
}

/**
 * bin/run.js's call: writes the answer and ends the process at once (as runAuth does, see
 * watchStreams), or resolves what the auth bundle needs to answer the call instead.
 */
export async function answerFromCache(
  argv: readonly string[],
  options: { readonly exit?: boolean } = {},
): Promise<HandOver | undefined> {
  let gitRequest: string | undefined;
  try {
    // Only for a call this path understands: help or a mistake goes to oclif, which reads nothing.
    if (parseAuthArgs(argv)?.verb === 'git-credential') gitRequest = await readGitCredentialRequest();
  } catch {
    return {}; // the auth bundle reads it again, and says what is wrong
  }
  const answer = await cachedAnswer(argv, process.env, gitRequest);
  if (answer === undefined) return { gitRequest };
  const streams = options.exit === true ? watchStreams() : undefined;
  try {
    if (answer !== '') write(1, answer);
  } catch (err) {
    // The answer did not get out (a closed pipe: EPIPE): one line on stderr, as the auth bundle
    // says it, loaded only now (it brings node:util).
    const { printFailure } = require('../../adapters/shared/inbound/cli/failure-output') as typeof FailureOutput;
    process.exitCode = 1;
    try {
      printFailure(err, false);
    } catch {
      // stderr is gone too: the exit code says it
    }
  }
  if (streams !== undefined && !streams.made()) process.exit();
  return undefined;
}

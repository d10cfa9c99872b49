import { parseAuthArgs } from '../../adapters/login/inbound/cli/fast-auth-args';
import { answerOrHandOver, HandOver } from '../../adapters/shared/inbound/cli/read-answer';
import { SystemClock } from '../../adapters/shared/outbound/clock/system-clock';
import { validCachedTokens } from '../../application/login/auth/cached-token';
import { tokenDetails } from '../../domain/login/auth/token-details';
import { execCredential, parseExecInfo } from '../../domain/login/kube/exec-credential';
import { authPaths } from '../login/auth-paths';
import { tokenFiles } from '../login/token-files';

/**
 * The read path of `skiff auth token` and `skiff auth kube-credential` (bundled as
 * dist/auth-read.bundle.js, tried first by bin/run.js): when the cache holds a token valid
 * now, the answer comes from the contexts file and the cache file alone, with no container
 * and no inversify, which cost more than Node's start allows these two (docs/performance.md,
 * "The login flow"). Undefined for anything else (a refresh due, no record, any error, any
 * other call): the auth bundle then answers it in full, errors included, so each message
 * has one source. The output as the commands write it.
 */
export async function cachedAnswer(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const call = parseAuthArgs(argv);
  if (call?.verb !== 'token' && call?.verb !== 'kube-credential') return undefined;
  try {
    // kubectl's request is judged first, as KubeCredential does: one skiff cannot serve fails in full.
    const info = call.verb === 'kube-credential' ? parseExecInfo(env.KUBERNETES_EXEC_INFO) : undefined;
    const files = tokenFiles(authPaths(env));
    const ports = { config: files.configStore, cache: files.tokenCache, clock: new SystemClock() };
    const found = await validCachedTokens(ports, { domain: call.domain, context: call.context });
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

/** bin/run.js's call: writes the answer (and, with `exit`, ends the process), or hands the call over. */
export function answerFromCache(
  argv: readonly string[],
  options: { readonly exit?: boolean } = {},
): Promise<HandOver | undefined> {
  return answerOrHandOver(`auth ${argv[0]}`, options, async () => {
    const answer = await cachedAnswer(argv, process.env);
    return answer === undefined ? { handOver: {} } : { answer };
  });
}

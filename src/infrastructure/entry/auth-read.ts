import { type AuthHandOver, type FastAuthCall, parseAuthArgs } from '../../adapters/login/inbound/cli/fast-auth-args';
import { answerOrHandOver } from '../../adapters/shared/inbound/cli/read-answer';
import { scopeOf } from '../../application/login/auth/auth-scope';
import { cachedTokens } from '../../application/login/auth/cached-token';
import { tokenDetails } from '../../domain/login/auth/token-details';
import { execCredential, parseExecInfo } from '../../domain/login/kube/exec-credential';
import { authPaths } from '../login/auth-paths';
import { loginFilePorts } from '../login/login-ports';

/**
 * The read path of `skiff auth token` and `skiff auth kube-credential` (bundled as
 * dist/auth-read.bundle.js, tried first by bin/run.js): an entry of the composition root
 * that takes the few ports it uses from the table the login module binds
 * (login/login-ports.ts), each made on first use, with no container and no inversify, which
 * cost more than Node's start allows these two (docs/performance.md, "The login flow"). It
 * runs GetToken's first step (cachedTokens) and answers when that finds a token valid now.
 * Undefined for anything else (a refresh due, no record, any error): the auth bundle then
 * answers it with GetToken, errors included, so each message has one source. The output as
 * the commands write it.
 */
async function answerFor(call: FastAuthCall, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (call.verb !== 'token' && call.verb !== 'kube-credential') return undefined;
  try {
    // kubectl's request is judged first, as KubeCredential does: one skiff cannot serve fails in full.
    const info = call.verb === 'kube-credential' ? parseExecInfo(env.KUBERNETES_EXEC_INFO) : undefined;
    const ports = loginFilePorts(authPaths(env));
    const scope = scopeOf(await ports.config.load(), { domain: call.domain, context: call.context });
    const tokens = (await cachedTokens(ports, scope)).valid;
    if (tokens === undefined) return undefined;
    if (info !== undefined) return `${JSON.stringify(execCredential(info, tokens.accessToken, tokens.expiresAt))}\n`;
    if (call.json) return `${JSON.stringify(tokenDetails(tokens, ports.cache.store(scope.cacheDomain)), null, 2)}\n`;
    return `${tokens.accessToken}\n`;
  } catch {
    return undefined;
  }
}

/** The answer from the cache for `argv` (the words after `auth`), or undefined (tests, the build's warm-up). */
export async function cachedAnswer(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const call = parseAuthArgs(argv);
  return call === undefined ? undefined : answerFor(call, env);
}

/**
 * bin/run.js's call: writes the answer (and, with `exit`, ends the process), or hands the
 * call, parsed once here, to the auth bundle (none: oclif's).
 */
export function answerFromCache(
  argv: readonly string[],
  options: { readonly exit?: boolean } = {},
): Promise<AuthHandOver | undefined> {
  const call = parseAuthArgs(argv);
  if (call === undefined) return Promise.resolve({});
  return answerOrHandOver(`auth ${call.verb}`, options, async () => {
    const answer = await answerFor(call, process.env);
    return answer === undefined ? { handOver: { call } } : { answer };
  });
}

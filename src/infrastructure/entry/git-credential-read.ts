import { type AuthHandOver, type FastAuthCall, parseAuthArgs } from '../../adapters/login/inbound/cli/fast-auth-args';
import { readGitCredentialRequest } from '../../adapters/login/inbound/cli/git-credential-input';
import { answerOrHandOver } from '../../adapters/shared/inbound/cli/read-answer';
import { cachedGitCredential } from '../../application/login/auth/cached-git-credential';
import { authPaths } from '../login/auth-paths';
import { loginFilePorts } from '../login/login-ports';

type GitCredentialCall = Extract<FastAuthCall, { verb: 'git-credential' }>;

/**
 * The read path of `skiff auth git-credential get|store|erase` (bundled as
 * dist/git-credential-read.bundle.js, tried first by bin/run.js; git runs it for every fetch
 * and push): an entry of the composition root as auth-read.ts is, running GitCredential's
 * first step (cachedGitCredential) on the ports of login/login-ports.ts. Undefined for what
 * that step leaves (the domain from the cache or another host, each with its notice; no git
 * token; any error), which the auth bundle answers with GitCredential. `request` is what git
 * wrote on stdin.
 */
async function answerFor(
  call: GitCredentialCall,
  env: NodeJS.ProcessEnv,
  request: string,
): Promise<string | undefined> {
  try {
    const target = { domain: call.domain, context: call.context };
    const first = await cachedGitCredential(loginFilePorts(authPaths(env)), {
      target,
      operation: call.operation,
      request,
    });
    return first.reply;
  } catch {
    return undefined;
  }
}

/** The answer from the cache for `argv` (the words after `auth`), or undefined (tests, the build's warm-up). */
export async function cachedAnswer(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  request: string,
): Promise<string | undefined> {
  const call = parseAuthArgs(argv);
  return call?.verb === 'git-credential' ? answerFor(call, env, request) : undefined;
}

/**
 * bin/run.js's call: reads git's request, then writes the answer (and, with `exit`, ends the
 * process), or hands the call, parsed once here, to the auth bundle with the request when it
 * was read.
 */
export async function answerFromCache(
  argv: readonly string[],
  options: { readonly exit?: boolean } = {},
): Promise<AuthHandOver | undefined> {
  const call = parseAuthArgs(argv);
  // Only for a call this path understands: help or a mistake goes to oclif, which reads nothing.
  if (call?.verb !== 'git-credential') return { call };
  return answerOrHandOver<AuthHandOver>('auth git-credential', options, async () => {
    let gitRequest: string;
    try {
      gitRequest = await readGitCredentialRequest();
    } catch {
      return { handOver: { call } }; // the auth bundle reads it again, and says what is wrong
    }
    const answer = await answerFor(call, process.env, gitRequest);
    return answer === undefined ? { handOver: { call, gitRequest } } : { answer };
  });
}

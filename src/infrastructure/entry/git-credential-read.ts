import { parseAuthArgs } from '../../adapters/login/inbound/cli/fast-auth-args';
import { readGitCredentialRequest } from '../../adapters/login/inbound/cli/git-credential-input';
import { writeAnswer } from '../../adapters/shared/inbound/cli/read-answer';
import { cachedGitCredential } from '../../application/login/auth/cached-git-credential';
import { authPaths } from '../login/auth-paths';
import { tokenFiles } from '../login/token-files';

/**
 * The read path of `skiff auth git-credential get|store|erase` (bundled as
 * dist/git-credential-read.bundle.js, tried first by bin/run.js; git runs it for every fetch
 * and push): answered from the contexts file and the cache file alone, as auth-read.ts
 * answers `auth token`, when they hold what git asks for. Undefined for anything else (the
 * domain from the cache or another host, each with its notice; no git token; any error; any
 * other call), which the auth bundle answers in full. `request` is what git wrote on stdin.
 */
export async function cachedAnswer(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  request: string,
): Promise<string | undefined> {
  const call = parseAuthArgs(argv);
  if (call?.verb !== 'git-credential') return undefined;
  try {
    const files = tokenFiles(authPaths(env));
    const target = { domain: call.domain, context: call.context };
    return await cachedGitCredential(
      { config: files.configStore, cache: files.tokenCache },
      { target, operation: call.operation, request },
    );
  } catch {
    return undefined;
  }
}

/** What the auth bundle needs to answer a call this path could not: git's request, when it was read. */
export interface HandOver {
  readonly gitRequest?: string;
}

/**
 * bin/run.js's call: reads git's request, then writes the answer (and, with `exit`, ends the
 * process), or resolves the request for the auth bundle to answer instead.
 */
export async function answerFromCache(
  argv: readonly string[],
  options: { readonly exit?: boolean } = {},
): Promise<HandOver | undefined> {
  // Only for a call this path understands: help or a mistake goes to oclif, which reads nothing.
  if (parseAuthArgs(argv)?.verb !== 'git-credential') return {};
  let gitRequest: string;
  try {
    gitRequest = await readGitCredentialRequest();
  } catch {
    return {}; // the auth bundle reads it again, and says what is wrong
  }
  const answer = await cachedAnswer(argv, process.env, gitRequest);
  if (answer === undefined) return { gitRequest };
  writeAnswer(answer, options);
  return undefined;
}

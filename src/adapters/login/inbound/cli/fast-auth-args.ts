import { GIT_CREDENTIAL_OPERATIONS, type GitCredentialOperation } from '../../../../domain/login/git/git-credential';
import { parseFastArgv } from '../../../shared/inbound/cli/fast-argv';
import { FlagSpecs, JSON_FLAG } from '../../../shared/inbound/cli/flag-specs';
import { TARGET_FLAGS } from './target-flags';

/**
 * The verbs of the fast path and the flags of each, as its command has them:
 * AuthCommand builds its baseFlags from the same table, and `auth token` and `auth status` have
 * oclif's `--json` (test/infrastructure/entry/auth-flags.test.ts holds the two together).
 */
/** `auth token --dpop-proof --method M --url U`: known to the fast path only to hand it to oclif (it signs). */
const DPOP_PROOF_FLAGS = {
  'dpop-proof': { type: 'boolean', description: 'Print a DPoP proof (RFC 9449) for one request with the token.' },
  method: { type: 'string', description: 'The HTTP method of the request the proof is for.' },
  url: { type: 'string', description: 'The URL of the request the proof is for.' },
} as const satisfies FlagSpecs;

export const FAST_AUTH_FLAGS = {
  token: { ...TARGET_FLAGS, json: JSON_FLAG, ...DPOP_PROOF_FLAGS },
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

/**
 * What a read path hands the auth bundle for a call it did not answer (bin/run.js): the call
 * as it parsed it, so nothing parses the arguments again (none: oclif's, help or a mistake),
 * and git's request when it was read from stdin already.
 */
export interface AuthHandOver {
  readonly call?: FastAuthCall;
  readonly gitRequest?: string;
}

const isGitOperation = (word: string | undefined): word is GitCredentialOperation =>
  (GIT_CREDENTIAL_OPERATIONS as readonly (string | undefined)[]).includes(word);

/**
 * The fast start of `skiff auth token|kube-credential|status|git-credential` (the bundles
 * dist/auth-read.bundle.js and dist/auth.bundle.js, which bin/run.js calls without oclif): scripts, kubectl
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
  const flags: Readonly<Record<string, string | true | undefined>> | undefined = parseFastArgv(table, argv);
  // A proof is made by the full command (the key, the clock, crypto): never on the fast path.
  if (flags === undefined || Object.keys(DPOP_PROOF_FLAGS).some((name) => flags[name] !== undefined)) return undefined;
  return {
    domain: flags.domain as string | undefined,
    context: flags.context as string | undefined,
    json: flags.json === true,
  };
}

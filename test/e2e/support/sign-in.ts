import { CliHome, CliResult, finished, waitForStderr } from './skiff-home';
import { completeAuthorization, httpRequest, OidcServer } from './oidc';
import { freePort } from './stand-ins';

/** The authorization URL a login command prints on stderr with --no-browser. */
export const AUTHORIZATION_URL = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/;

export interface ProviderContext {
  readonly name?: string;
  readonly domain?: string;
  /** Further `config set-context` flags, e.g. ['--git-url', url]. */
  readonly services?: readonly string[];
}

/** `skiff config set-context <name>` for `domain` with the identity provider at `oidc`, made current. */
export async function useProvider(home: CliHome, oidc: OidcServer, context: ProviderContext = {}): Promise<void> {
  const { name = 'e2e', domain = 'e2e.test', services = [] } = context;
  const set = await home.run([
    'config',
    'set-context',
    name,
    '--domain',
    domain,
    '--auth-url',
    oidc.issuer,
    ...services,
  ]);
  if (set.code !== 0) throw new Error(`set-context failed: ${set.stderr}`);
  const use = await home.run(['config', 'use-context', name]);
  if (use.code !== 0) throw new Error(`use-context failed: ${use.stderr}`);
}

export interface SignIn {
  readonly result: CliResult;
  readonly authorizationUrl: string;
  readonly callbackPage: string;
}

/** Runs a login command (`args`, with --no-browser), playing the browser against the real provider as `login`. */
export async function signIn(
  home: CliHome,
  args: readonly string[],
  { input = '', login = 'alice' }: { input?: string; login?: string } = {},
): Promise<SignIn> {
  const port = await freePort();
  const child = home.spawn([...args, '--no-browser', '--port', String(port)]);
  const done = finished(child);
  child.stdin?.end(input);
  const [, authorizationUrl] = await waitForStderr(child, AUTHORIZATION_URL);
  const page = await httpRequest(await completeAuthorization(authorizationUrl, login));
  if (page.status !== 200) throw new Error(`callback answered ${page.status}: ${page.body}`);
  return { result: await done, authorizationUrl, callbackPage: page.body };
}

/** `skiff auth sso`, playing the browser against the real provider as `login`. */
export async function signInWithSso(home: CliHome, login = 'alice'): Promise<CliResult> {
  return (await signIn(home, ['auth', 'sso'], { login })).result;
}

import { CliHome, CliResult, finished, waitForStderr } from './skiff-home';
import { completeAuthorization, httpRequest, OidcServer } from './oidc';
import { freePort } from './stand-ins';

/** `skiff config set-context <name>` for `domain` with the identity provider at `oidc`, made current. */
export async function useProvider(home: CliHome, oidc: OidcServer, name = 'e2e', domain = 'e2e.test'): Promise<void> {
  const set = await home.run(['config', 'set-context', name, '--domain', domain, '--auth-url', oidc.issuer]);
  if (set.code !== 0) throw new Error(`set-context failed: ${set.stderr}`);
  const use = await home.run(['config', 'use-context', name]);
  if (use.code !== 0) throw new Error(`use-context failed: ${use.stderr}`);
}

/** `skiff auth sso`, playing the browser against the real provider as `login`. */
export async function signInWithSso(home: CliHome, login = 'alice'): Promise<CliResult> {
  const port = await freePort();
  const child = home.spawn(['auth', 'sso', '--no-browser', '--port', String(port)]);
  const done = finished(child);
  child.stdin?.end();
  const [, authorizationUrl] = await waitForStderr(child, /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/);
  const page = await httpRequest(await completeAuthorization(authorizationUrl, login));
  if (page.status !== 200) throw new Error(`callback answered ${page.status}`);
  return done;
}

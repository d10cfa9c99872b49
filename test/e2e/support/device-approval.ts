import { browser, formOf } from './oidc';

export interface DeviceApproval {
  /** The title of the last page the provider showed (its error line, back at the code input page). */
  readonly finalPage: string;
}

/**
 * Plays the user at the provider's device pages (oidc-provider's own): opens the
 * verification URI that carries the code, confirms the code (or aborts, `deny`),
 * signs in as `login` and consents, with cookies, up to the page that ends it.
 */
export async function approveDevice(
  verificationUriComplete: string,
  { login = 'alice', deny = false }: { login?: string; deny?: boolean } = {},
): Promise<DeviceApproval> {
  const send = browser();
  let url = verificationUriComplete;
  let method = 'GET';
  let body: string | undefined;
  for (let step = 0; step < 20; step++) {
    const reply = await send(url, method, body);
    if (reply.status >= 300 && reply.status < 400) {
      [url, method, body] = [new URL(String(reply.headers.location), url).toString(), 'GET', undefined];
      continue;
    }
    // Back at the code input page (after an abort): the provider's message ends it.
    if (reply.body.includes('op.deviceInputForm') && step > 0) {
      return { finalPage: /<p class="red">([^<]*)<\/p>/.exec(reply.body)?.[1] ?? 'Sign-in' };
    }
    const form = formOf(reply.body, url);
    if (form === undefined)
      return { finalPage: /<title>([^<]*)<\/title>/.exec(reply.body)?.[1] ?? `HTTP ${reply.status}` };
    let fields = form.fields;
    if (fields.prompt === 'login') fields = { ...fields, login, password: 'any' };
    if (fields.confirm === 'yes' && deny) fields = { xsrf: fields.xsrf, user_code: fields.user_code, abort: 'yes' };
    [url, method, body] = [form.action, 'POST', new URLSearchParams(fields).toString()];
  }
  throw new Error('too many steps at the device pages');
}

import { httpRequest } from './oidc';

export interface DeviceApproval {
  /** The title of the last page the provider showed (its error line, back at the code input page). */
  readonly finalPage: string;
}

function hiddenInputs(form: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const input of form.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
    fields[input[1]] = input[2];
  return fields;
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
  const jar = new Map<string, string>();
  let url = verificationUriComplete;
  let method = 'GET';
  let body: string | undefined;
  for (let step = 0; step < 20; step++) {
    const headers: Record<string, string> = { Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (body !== undefined) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    const reply = await httpRequest(url, { method, body, headers });
    const cookies = reply.headers['set-cookie'] ?? [];
    for (const cookie of Array.isArray(cookies) ? cookies : [cookies]) {
      const [pair] = cookie.split(';');
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    if (reply.status >= 300 && reply.status < 400) {
      [url, method, body] = [new URL(String(reply.headers.location), url).toString(), 'GET', undefined];
      continue;
    }
    const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(reply.body);
    // Back at the code input page (after an abort): the provider's message ends it.
    if (reply.body.includes('op.deviceInputForm') && step > 0) {
      return { finalPage: /<p class="red">([^<]*)<\/p>/.exec(reply.body)?.[1] ?? 'Sign-in' };
    }
    if (form === null) return { finalPage: /<title>([^<]*)<\/title>/.exec(reply.body)?.[1] ?? `HTTP ${reply.status}` };
    let fields = hiddenInputs(form[2]);
    if (fields.prompt === 'login') fields = { ...fields, login, password: 'any' };
    if (fields.confirm === 'yes' && deny) fields = { xsrf: fields.xsrf, user_code: fields.user_code, abort: 'yes' };
    [url, method, body] = [
      new URL(form[1].replace(/&amp;/g, '&'), url).toString(),
      'POST',
      new URLSearchParams(fields).toString(),
    ];
  }
  throw new Error('too many steps at the device pages');
}

import { ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';

export interface TokenStats {
  token: Record<string, number>;
  revocation: Record<string, number>;
  devicePolls: Array<{ at: number; status: number; error?: string }>;
  /** The `sub` of each subject token a token exchange accepted, in order. */
  exchangedSubjects: string[];
  /** Pushed authorization requests (RFC 9126) by status. */
  par: Record<string, number>;
}

/** How the stand-in spoils the id_tokens it sends (oidc-server.mjs). */
export type IdTokenMode =
  'good' | 'foreign-key' | 'impostor' | 'audience' | 'issuer' | 'expired' | 'no-nonce' | 'nonce';

/** The oidc-provider child process. */
export class OidcServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly issuer: string,
  ) {}

  /** `env` tunes the provider (see oidc-server.mjs). */
  static async start(env: NodeJS.ProcessEnv = {}): Promise<OidcServer> {
    const child = spawn(process.execPath, [join(__dirname, 'oidc-server.mjs')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let errors = '';
    child.stderr?.on('data', (d: Buffer) => (errors += d.toString()));
    const issuer = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n')) resolve((JSON.parse(line) as { issuer: string }).issuer);
      });
      child.once('exit', (code) => reject(new Error(`oidc-server exited ${code}: ${errors}`)));
    });
    return new OidcServer(child, issuer);
  }

  async stats(): Promise<TokenStats> {
    return JSON.parse((await httpRequest(`${this.issuer}/__stats`)).body) as TokenStats;
  }

  /** From now on the token endpoint sends id_tokens bad in this way (see oidc-server.mjs), or good ones again. */
  async idTokens(mode: IdTokenMode): Promise<void> {
    const reply = await httpRequest(`${this.issuer}/__id_token?mode=${mode}`);
    if (reply.status !== 200) throw new Error(`/__id_token answered ${reply.status}`);
  }

  /** Token endpoint requests of a grant type that succeeded. */
  async grants(type: string): Promise<number> {
    return (await this.stats()).token[`${type}:200`] ?? 0;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request, no redirect followed, to 127.0.0.1 whatever the host name says. */
export function httpRequest(
  url: string,
  options: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<RawReply> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'GET',
        headers: { Host: target.host, ...options.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The page's first form: where it posts and its hidden fields. */
export function formOf(html: string, base: string): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(html);
  if (form === null) return undefined;
  const fields: Record<string, string> = {};
  for (const input of form[2].matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
    fields[input[1]] = input[2];
  return { action: new URL(form[1].replace(/&amp;/g, '&'), base).toString(), fields };
}

/**
 * A browser without the rendering: each request sends the cookies it was given before
 * (the provider's interaction pages need them). A body is sent as a posted form.
 */
export function browser(): (url: string, method: string, body?: string) => Promise<RawReply> {
  const jar = new Map<string, string>();
  return async (url, method, body) => {
    const headers: Record<string, string> = { Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (body !== undefined) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    const reply = await httpRequest(url, { method, body, headers });
    const cookies = reply.headers['set-cookie'] ?? [];
    for (const cookie of Array.isArray(cookies) ? cookies : [cookies]) {
      const [pair] = cookie.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return reply;
  };
}

/**
 * Plays the user in the browser: follows the provider's redirects and submits its
 * login and consent pages (with cookies), up to the redirect to the CLI's callback.
 * Returns that callback URL without requesting it.
 */
export async function completeAuthorization(authorizationUrl: string, login = 'alice'): Promise<string> {
  const send = browser();
  let url = authorizationUrl;
  let method = 'GET';
  let body: string | undefined;
  for (let step = 0; step < 20; step++) {
    const reply = await send(url, method, body);
    if (reply.status >= 300 && reply.status < 400) {
      const next = new URL(String(reply.headers.location), url);
      if (next.pathname === '/callback') return next.toString();
      [url, method, body] = [next.toString(), 'GET', undefined];
      continue;
    }
    const form = reply.status === 200 ? formOf(reply.body, url) : undefined;
    if (form === undefined) throw new Error(`unexpected reply ${reply.status} at ${url}: ${reply.body.slice(0, 300)}`);
    const fields = form.fields.prompt === 'login' ? { ...form.fields, login, password: 'any' } : form.fields;
    [url, method, body] = [form.action, 'POST', new URLSearchParams(fields).toString()];
  }
  throw new Error('too many steps in the authorization');
}

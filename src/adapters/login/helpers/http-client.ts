import type { AxiosInstance, AxiosRequestConfig } from 'axios';
import type { Agent } from 'node:http';
import { percentEncode } from '../../../domain/login/auth/percent-encoding';
import { NetworkError } from '../../../domain/shared/errors';

export interface HttpRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs?: number;
}

export interface HttpReply {
  readonly status: number;
  /** The raw text: callers parse it (ids must keep their digits). */
  readonly body: string;
  readonly contentType: string;
  /** The reply's headers, names in lower case (absent in replies made by hand). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Every request is bounded: a silent remote never hangs a command. */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** Replies larger than this are not what we asked for. */
export const MAX_REPLY_BYTES = 1024 * 1024;

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'EPROTO',
]);

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * One line for a request that got no HTTP reply, naming the host and what to check.
 * Built from the error code only: axios errors carry the request (headers with
 * tokens included), so nothing else of them is ever shown.
 */
export function networkFailure(err: unknown, url: string, timeoutMs: number): NetworkError {
  const host = hostOf(url);
  const code = String((err as { code?: unknown }).code ?? '');
  let message: string;
  if (code === 'ECONNREFUSED')
    message = `cannot connect to ${host}: connection refused; check the domain and that the service is up`;
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    message = `cannot resolve ${host}: check the domain and your network`;
  else if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') {
    message = `no reply from ${host} within ${Math.round(timeoutMs / 1000)} s: check your network or proxy settings`;
  } else if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_BAD_RESPONSE') {
    message = `the connection to ${host} was closed before a complete reply: try again later`;
  } else if (TLS_CODES.has(code) || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS')) {
    message = `the TLS certificate of ${host} is not trusted (${code}): for a private CA set NODE_EXTRA_CA_CERTS to its certificate file`;
  } else if (code === 'ERR_FR_MAX_BODY_LENGTH_EXCEEDED' || code === 'ERR_BAD_RESPONSE_SIZE') {
    message = `${host} sent a reply larger than ${MAX_REPLY_BYTES} bytes`;
  } else {
    message = `the request to ${host} failed${code ? ` (${code})` : ''}: check your network or proxy settings`;
  }
  return new NetworkError(message, 'HTTP.UNREACHABLE', { cause: code });
}

/** Same line, any control characters and runs of white space collapsed, at most `limit` characters. */
export function oneLine(text: string, limit = 300): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this removes (C1 too: a terminal may act on them)
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit)}...` : flat;
}

/**
 * Replaces every occurrence of the given secrets (what we sent) in a remote's text, in each
 * form a remote can echo them in: raw, percent-encoded (RFC 3986 as skiff sends them,
 * encodeURIComponent, form encoding with + for space, either case of hex), JSON-escaped (with or without `\/`, with `\uXXXX`
 * for non-ASCII), and base64 or base64url of each of those at any byte alignment (inside Basic
 * credentials, say: the characters that depend on the bytes around it are left, at most two each side).
 */
export function redact(text: string, secrets: readonly string[]): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    for (const form of encodedForms(secret)) if (form.length >= 4) forms.add(form);
  }
  // Longest first, so that a form holding another is replaced whole.
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return text;
  const pattern = new RegExp(ordered.map(escapeRegExp).join('|'), 'g');
  const hexCase = new RegExp(
    ordered
      .filter((f) => f.includes('%'))
      .map(escapeRegExp)
      .join('|') || '(?!)',
    'gi',
  );
  return text.replace(pattern, REDACTED).replace(hexCase, REDACTED);
}

const REDACTED = '[redacted]';

function encodedForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const forms = [
    secret,
    percentEncode(secret),
    // encodeURIComponent throws on a lone surrogate (a JSON string may hold one); sent, it is U+FFFD.
    encodeURIComponent(wellFormed(secret)),
    new URLSearchParams({ s: secret }).toString().slice(2),
    json,
    json.replace(/\//g, '\\/'),
    json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  ];
  // Base64 of each textual form, not of the raw secret alone: Basic credentials carry the
  // form-encoded secret (RFC 6749 §2.3.1), so a secret with reserved characters travels as
  // base64 of its percent-encoding.
  return [...new Set(forms)].flatMap((form) => [form, ...base64Forms(form)]);
}

/** `text` in base64 and base64url after 0, 1 or 2 other bytes: only the characters made of its bits alone. */
function base64Forms(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const shifted = Buffer.concat([Buffer.alloc(offset), bytes]);
    const from = Math.ceil((offset * 8) / 6);
    const to = Math.floor((shifted.length * 8) / 6);
    for (const encoding of ['base64', 'base64url'] as const) {
      forms.push(shifted.toString(encoding).slice(from, to));
    }
  }
  return forms;
}

/** Lone surrogates replaced by U+FFFD, as UTF-8 encoding does. */
function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * HTTP over axios, loaded on first use only (a command answered from the cache never
 * pays for it). Proxies come from the environment (HTTPS_PROXY, NO_PROXY, ...),
 * tunnelled with CONNECT; loopback hosts never use a proxy. Extra CAs come from
 * NODE_EXTRA_CA_CERTS, which Node applies to every TLS connection.
 */
export class HttpClient {
  private axios: AxiosInstance | undefined;

  async send(request: HttpRequest): Promise<HttpReply> {
    const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const config: AxiosRequestConfig = {
      method: request.method,
      url: request.url,
      headers: { 'User-Agent': 'skiff-cli', ...request.headers },
      data: request.body,
      timeout: timeoutMs,
      responseType: 'text',
      transformResponse: [(data: unknown) => data],
      validateStatus: () => true,
      maxRedirects: request.method === 'GET' ? 3 : 0,
      maxContentLength: MAX_REPLY_BYTES,
      maxBodyLength: MAX_REPLY_BYTES,
      proxy: false,
    };
    const agent = proxyAgentFor(request.url);
    if (agent !== undefined) config.httpsAgent = agent;
    try {
      const reply = await this.instance().request<string>(config);
      return {
        status: reply.status,
        body: typeof reply.data === 'string' ? reply.data : String(reply.data ?? ''),
        contentType: String(reply.headers['content-type'] ?? ''),
        headers: Object.fromEntries(
          Object.entries(reply.headers as Record<string, unknown>)
            .filter(([, v]) => typeof v === 'string')
            .map(([k, v]) => [k.toLowerCase(), v as string]),
        ),
      };
    } catch (err) {
      throw networkFailure(err, request.url, timeoutMs);
    }
  }

  private instance(): AxiosInstance {
    this.axios ??= (require('axios') as typeof import('axios')).create();
    return this.axios;
  }
}

function proxyAgentFor(url: string): Agent | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' || LOOPBACK.test(parsed.hostname)) return undefined;
  const { getProxyForUrl } = require('proxy-from-env') as typeof import('proxy-from-env');
  const proxy = getProxyForUrl(url);
  if (!proxy) return undefined;
  const { HttpsProxyAgent } = require('https-proxy-agent') as typeof import('https-proxy-agent');
  return new HttpsProxyAgent(proxy) as unknown as Agent;
}

/** Parses a JSON reply; a NetworkError naming the host when it is not JSON (an HTML error page, garbage). */
export function parseJsonReply(
  reply: HttpReply,
  url: string,
  what: string,
  parse: (text: string) => unknown = JSON.parse,
): unknown {
  try {
    return parse(reply.body);
  } catch {
    const kind =
      /html/i.test(reply.contentType) || /^\s*</.test(reply.body) ? 'an HTML page' : 'something that is not JSON';
    throw new NetworkError(
      `${hostOf(url)} answered ${what} with ${kind} (HTTP ${reply.status}): check the URL of the service`,
      'HTTP.BAD_REPLY',
    );
  }
}

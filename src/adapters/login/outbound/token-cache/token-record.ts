import { AuthTokens } from '../../../../domain/login/auth/auth-tokens';

/**
 * The cache file's JSON (docs/login-contract.md, "Files"): exactly the specification's
 * fields, the optional ones (`id_token`, `gitea_token`) omitted when absent, `expires_at`
 * in RFC 3339 UTC; a robot's record alone adds `client_id` and `client_secret_file` (client
 * credentials) or `client_id`, `subject_token_file` and `subject_token_type` (token exchange), and a
 * DPoP-bound record `token_type: "DPoP"` (RFC 9449 §5; a bearer record has no `token_type`).
 * Any other key is ignored on read (files an earlier skiff wrote with `scope` and
 * `sign_in` read, and are written back without them).
 */
export interface TokenRecordJson {
  access_token: string;
  refresh_token: string;
  expires_at: string;
  id_token?: string;
  domain: string;
  gitea_token?: string;
  client_id?: string;
  client_secret_file?: string;
  subject_token_file?: string;
  subject_token_type?: string;
  token_type?: string;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

export function encodeRecord(tokens: AuthTokens): string {
  return renderRecord(recordJson(tokens));
}

/** The file's text of a JSON record: 2 spaces, a final newline (undefined fields left out). */
export function renderRecord(json: object): string {
  return `${JSON.stringify(json, null, 2)}\n`;
}

/** The record's fields as the file names them, in the documented order, absent ones undefined. */
export function recordJson(tokens: AuthTokens): Record<keyof TokenRecordJson, string | undefined> {
  // Built field by field so the file keeps the documented order.
  return {
    access_token: tokens.accessToken,
    refresh_token: tokens.refreshToken,
    expires_at: tokens.expiresAt.toISOString(),
    id_token: tokens.idToken,
    domain: tokens.domain,
    gitea_token: tokens.giteaToken,
    client_id: tokens.clientId,
    client_secret_file: tokens.clientSecretFile,
    subject_token_file: tokens.subjectTokenFile,
    subject_token_type: tokens.subjectTokenType,
    token_type: tokens.tokenType,
  };
}

/** `token_type` read back: only `DPoP` is kept (a bearer token is the record without the field). */
function dpopType(value: string | undefined): 'DPoP' | undefined {
  if (value === undefined || /^bearer$/i.test(value)) return undefined;
  if (value === 'DPoP') return 'DPoP';
  throw new Error('field token_type is neither DPoP nor absent');
}

/** Parses the file's text; throws an Error whose message names the faulty field. */
export function decodeRecord(text: string): AuthTokens {
  return decodeRecordObject(parseRecordObject(text));
}

/** The file's JSON object; throws an Error saying what else it is. */
export function parseRecordObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('does not hold a JSON object');
  return value as Record<string, unknown>;
}

/** A record from the file's JSON object; throws an Error whose message names the faulty field. */
export function decodeRecordObject(record: Record<string, unknown>): AuthTokens {
  const required = (key: string): string => {
    const field = record[key];
    if (typeof field !== 'string') throw new Error(`field ${key} is missing or not a string`);
    return field;
  };
  const optional = (key: string): string | undefined => {
    const field = record[key];
    if (field === undefined || field === null) return undefined;
    if (typeof field !== 'string') throw new Error(`field ${key} is not a string`);
    return field;
  };
  const expires = required('expires_at');
  const time = Date.parse(expires.replace(' ', 'T'));
  if (!RFC3339.test(expires) || Number.isNaN(time)) throw new Error('field expires_at is not an RFC 3339 timestamp');
  return new AuthTokens({
    accessToken: required('access_token'),
    refreshToken: required('refresh_token'),
    expiresAt: new Date(time),
    idToken: optional('id_token'),
    domain: required('domain'),
    giteaToken: optional('gitea_token'),
    clientId: optional('client_id'),
    clientSecretFile: optional('client_secret_file'),
    subjectTokenFile: optional('subject_token_file'),
    subjectTokenType: optional('subject_token_type'),
    tokenType: dpopType(optional('token_type')),
  });
}

import { FRESHNESS_MARGIN_MS } from '../auth/auth-tokens';
import { ConfigurationError } from '../../shared/errors';
import { quoted } from '../../shared/quoted';

/**
 * kubectl's exec credential plugin protocol (Kubernetes "client-go credential plugins"):
 * kubectl says in KUBERNETES_EXEC_INFO which `client.authentication.k8s.io` version it
 * reads, and the plugin answers with an ExecCredential of that version on stdout.
 */
export const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const;
export type ExecApiVersion = (typeof EXEC_API_VERSIONS)[number];

/** What kubectl asked for; no KUBERNETES_EXEC_INFO at all means v1beta1 (as kubelogin reads it). */
export interface ExecInfo {
  readonly apiVersion: ExecApiVersion;
}

export interface ExecCredential {
  readonly kind: 'ExecCredential';
  readonly apiVersion: ExecApiVersion;
  readonly spec: { readonly interactive: boolean };
  readonly status: { readonly token: string; readonly expirationTimestamp: string };
}

function badExecInfo(why: string): ConfigurationError {
  return new ConfigurationError(
    `KUBERNETES_EXEC_INFO ${why}: kubectl sets it from the kubeconfig's exec section; ` +
      'run `skiff auth setup-kube` to write one skiff serves',
    'KUBE.BAD_EXEC_INFO',
  );
}

/** Reads KUBERNETES_EXEC_INFO (its text, or undefined when unset). */
export function parseExecInfo(raw: string | undefined): ExecInfo {
  if (raw === undefined || raw.trim() === '') return { apiVersion: 'client.authentication.k8s.io/v1beta1' };
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch {
    throw badExecInfo('is not JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw badExecInfo('is not a JSON object');
  const { kind, apiVersion } = doc as Record<string, unknown>;
  if (kind !== 'ExecCredential') throw badExecInfo('is not an ExecCredential');
  if (!EXEC_API_VERSIONS.includes(apiVersion as ExecApiVersion)) {
    const named = typeof apiVersion === 'string' ? apiVersion.slice(0, 80) : String(apiVersion);
    throw badExecInfo(`asks for apiVersion ${quoted(named)}, not ${EXEC_API_VERSIONS.join(' or ')}`);
  }
  return { apiVersion: apiVersion as ExecApiVersion };
}

/**
 * The credential kubectl caches until `expirationTimestamp`. That is the token's expiry
 * less the 60 s freshness margin, so kubectl asks again exactly when `auth token` would
 * refresh, never holding a token that runs out in flight. RFC 3339 without fractions.
 */
export function execCredential(info: ExecInfo, token: string, expiresAt: Date): ExecCredential {
  const until = new Date(expiresAt.getTime() - FRESHNESS_MARGIN_MS);
  return {
    kind: 'ExecCredential',
    apiVersion: info.apiVersion,
    spec: { interactive: false },
    status: { token, expirationTimestamp: `${until.toISOString().slice(0, 19)}Z` },
  };
}

import { InvalidArgumentError } from '../../../../domain/shared/errors';
import { NO_POD_FIELDS, type NamespaceMode, type PodSandboxFields } from '../../../../domain/shim/sandbox';
import type { AnyPayload } from '../../../../application/shim/task/task-messages';
import { runtime } from '../proto/generated/cri/pod-sandbox-config';

/**
 * The message CreateSandbox's options hold from containerd's CRI. containerd 2.3.4's typeurl
 * names it bare (`runtime.v1.PodSandboxConfig`, as seen from its CRI); protobuf's own Any
 * packing prefixes `type.googleapis.com/`: both are taken.
 */
export const POD_SANDBOX_CONFIG = 'runtime.v1.PodSandboxConfig';
const TYPE_URLS = new Set([POD_SANDBOX_CONFIG, `type.googleapis.com/${POD_SANDBOX_CONFIG}`]);

const MODES: Record<number, NamespaceMode> = {
  [runtime.v1.NamespaceMode.POD]: 'pod',
  [runtime.v1.NamespaceMode.CONTAINER]: 'container',
  [runtime.v1.NamespaceMode.NODE]: 'node',
  [runtime.v1.NamespaceMode.TARGET]: 'target',
};

function mode(value: number, what: string): NamespaceMode {
  const known = MODES[value];
  if (known === undefined)
    throw new InvalidArgumentError(
      `CreateSandbox's PodSandboxConfig has ${what} namespace mode ${value}, which CRI does not define`,
      'SANDBOX.OPTIONS',
    );
  return known;
}

/**
 * What a sandbox reads of CreateSandbox's options: CRI's PodSandboxConfig, or none (a caller
 * other than CRI: the pod's own namespaces). Options of another type are refused, naming it.
 */
export function podSandboxFields(options: AnyPayload | undefined): PodSandboxFields {
  if (options === undefined) return NO_POD_FIELDS;
  if (!TYPE_URLS.has(options.typeUrl))
    throw new InvalidArgumentError(
      `CreateSandbox's options are a ${JSON.stringify(options.typeUrl)}; skiff reads a ${POD_SANDBOX_CONFIG} (containerd's CRI sends it)`,
      'SANDBOX.OPTIONS',
    );
  let config: runtime.v1.PodSandboxConfig;
  try {
    config = runtime.v1.PodSandboxConfig.deserialize(options.value);
  } catch (err) {
    throw new InvalidArgumentError(
      `CreateSandbox's PodSandboxConfig does not decode: ${err instanceof Error ? err.message : String(err)}`,
      'SANDBOX.OPTIONS',
    );
  }
  // Unset messages read as undefined: a pod that says nothing has its own namespaces (POD is 0).
  const linux = config.has_linux ? config.linux : undefined;
  const context = linux?.has_security_context ? linux.security_context : undefined;
  const namespaces = context?.has_namespace_options ? context.namespace_options : undefined;
  const userns = namespaces?.has_userns_options ? namespaces.userns_options : undefined;
  const dns = config.has_dns_config ? config.dns_config : undefined;
  return {
    hostname: config.hostname,
    ...(dns !== undefined && { dns: { servers: dns.servers, searches: dns.searches, options: dns.options } }),
    network: mode(namespaces?.network ?? 0, 'a network'),
    pid: mode(namespaces?.pid ?? 0, 'a PID'),
    ipc: mode(namespaces?.ipc ?? 0, 'an IPC'),
    userns: userns === undefined ? 'node' : mode(userns.mode, 'a user'),
    sysctls: [...(linux?.sysctls ?? new Map<string, string>()).entries()].sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    ),
  };
}

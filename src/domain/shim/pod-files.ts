import { InvalidArgumentError } from '../shared/errors';
import type { PodDns, PodSandboxFields } from './sandbox';

/**
 * The files a pod's containers share, which containerd's podsandbox controller makes for a
 * pause container's pod and nobody makes in the sandbox mode (docs/sandbox-api.md, §3): skiff
 * makes them where CRI's CreateContainer looks for them (internal/cri/server/container_create.go
 * `linuxContainerMounts`, containerd v2.3.4), as internal/cri/server/podsandbox/sandbox_run_linux.go
 * `setupSandboxFiles` does.
 */

export interface PodFiles {
  /** /etc/hostname's name; undefined: the node's (CRI's rule for a pod that names none). */
  readonly hostname?: string;
  /** /etc/resolv.conf's text; undefined: a copy of the node's. */
  readonly resolvConf?: string;
  /** A /dev/shm of the pod's own (a tmpfs), unless its IPC namespace is the node's. */
  readonly ownShm: boolean;
}

/** resolv.conf from a DNSConfig, line for line as containerd's parseDNSOptions writes it. */
export function resolvConfText(dns: PodDns): string {
  let text = '';
  if (dns.searches.length > 0) text += `search ${dns.searches.join(' ')}\n`;
  for (const server of dns.servers) text += `nameserver ${server}\n`;
  if (dns.options.length > 0) text += `options ${dns.options.join(' ')}\n`;
  return text;
}

/** The pod's files from its PodSandboxConfig; a field that would break a file's lines is refused, naming it. */
export function podFilesOf(id: string, fields: PodSandboxFields): PodFiles {
  const { dns } = fields;
  const named: Array<[string, string]> = [
    ['hostname', fields.hostname],
    ...(dns === undefined
      ? []
      : [
          ...dns.servers.map((v): [string, string] => ['DNS server', v]),
          ...dns.searches.map((v): [string, string] => ['DNS search domain', v]),
          ...dns.options.map((v): [string, string] => ['DNS option', v]),
        ]),
  ];
  for (const [what, value] of named)
    if ([...value].some((c) => c < ' ' || c === '\x7f') || (what !== 'hostname' && value.trim() === ''))
      throw new InvalidArgumentError(
        `sandbox ${id}: the ${what} ${JSON.stringify(value)} cannot be written into a file of the pod's`,
        'SANDBOX.POD_FILES',
      );
  return {
    ...(fields.hostname !== '' && { hostname: fields.hostname }),
    ...(dns !== undefined && { resolvConf: resolvConfText(dns) }),
    ownShm: fields.ipc !== 'node',
  };
}

import { isAbsolute } from 'node:path';
import { ConfigurationError } from '../../../../domain/shared/errors';

/** containerd's defaults, as its config.toml leaves them (`state`, `[grpc] address`). */
export const DEFAULT_STATE = '/run/containerd';
export const DEFAULT_ADDRESS = '/run/containerd/containerd.sock';
/** The template's name: one instance per containerd namespace (`skiff@k8s.io` for the CRI plugin's). */
export const UNIT_NAME = 'skiff@.service';

export interface UnitFacts {
  /** containerd-shim-skiff-v2 of the installed package (its bin/ wrapper, which picks the native binary). */
  readonly shim: string;
  readonly state: string;
  readonly address: string;
  readonly version: string;
  /** SKIFF_NODE to write into the unit, when the Node.js it runs is not the one the shim finds itself. */
  readonly node?: string;
}

type Table = Record<string, unknown>;

/** `state` and `[grpc] address` of a parsed config.toml, else containerd's defaults. */
export function containerdPaths(config: Table | undefined): { state: string; address: string } {
  const grpc = config?.grpc;
  const address =
    typeof grpc === 'object' && grpc !== null && typeof (grpc as Table).address === 'string'
      ? ((grpc as Table).address as string)
      : DEFAULT_ADDRESS;
  const state = typeof config?.state === 'string' ? config.state : DEFAULT_STATE;
  return { state, address };
}

/** A path written into the unit: absolute, and nothing systemd would read as a specifier, a quote or a new line. */
export function checkUnitPath(what: string, path: string): string {
  if (!isAbsolute(path) || /[\s%"'\\;$`]/.test(path) || [...path].some((c) => c < ' ' || c === '\u007f'))
    throw new ConfigurationError(
      `${what} ${JSON.stringify(path)} must be an absolute path without spaces, quotes or % (the unit names it as it is)`,
      'CONTAINERD.UNIT_PATH',
    );
  return path;
}

/**
 * The systemd template unit that keeps a namespace's serving process up for the node's life
 * (docs/node-daemon.md): `containerd-shim-skiff-v2 ... serve`, a supervisor that holds the
 * namespace's group socket, so the keepers and `start` find it as one they started themselves.
 */
export function unitFile(facts: UnitFacts): string {
  const node = facts.node === undefined ? [] : [`Environment=SKIFF_NODE=${facts.node}`];
  return [
    `# skiff ${facts.version}: the serving process of a containerd namespace, up from boot (docs/node-daemon.md).`,
    '# Printed by `skiff containerd unit`; installed and started for the namespace of the CRI plugin with',
    `#   skiff containerd unit > /etc/systemd/system/${UNIT_NAME}`,
    '#   systemctl daemon-reload && systemctl enable --now skiff@k8s.io',
    '[Unit]',
    'Description=skiff serving process for containerd namespace %i',
    // Ordered after containerd (its state dir is there), and bound to it in no other way: a
    // restart of containerd leaves this process and its pods alone.
    'After=containerd.service',
    // kubelet starts once this process serves (READY=1 comes when Node serves, not when it is
    // spawned): the node's first pod meets a loaded serving process. Ordering only: a failed
    // start of this unit holds kubelet back no longer than its start takes.
    'Before=kubelet.service',
    '',
    '[Service]',
    'Type=notify',
    `ExecStart=${facts.shim} -namespace %i -address ${facts.address} -state ${facts.state} serve`,
    ...node,
    'Restart=always',
    'RestartSec=2',
    // A stop releases the tasks to the pod keepers, whose containers run on in containerd's
    // cgroup; what a checkpoint restore made this process's children runs on too.
    'KillMode=process',
    'TimeoutStopSec=40',
    // As containerd's own unit: one descriptor and one thread per pod's connections add up.
    'LimitNOFILE=1048576',
    'TasksMax=infinity',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

import { execFileSync } from 'node:child_process';
import { ConfigurationError } from '../../../../domain/shared/errors';

/** containerd's config.toml formats: version 2 (containerd 1.6 and 1.7) and version 3 (2.x). */
export const CONFIG_FORMATS = ['v2', 'v3'] as const;
export type ConfigFormat = (typeof CONFIG_FORMATS)[number];

/** The runtime type containerd maps to the binary containerd-shim-skiff-v2 on its PATH. */
export const RUNTIME_TYPE = 'io.containerd.skiff.v2';

/** The CRI plugin that holds runtime handlers, per format (containerd's docs/cri/config.md). */
const CRI_RUNTIME_PLUGIN: Record<ConfigFormat, string> = {
  v2: 'io.containerd.grpc.v1.cri',
  v3: 'io.containerd.cri.v1.runtime',
};

/** Where `--oci-runtime NAME` points the handler: a TOML file of runtime options (docs/containerd.md). */
export function ociRuntimeConfigPath(name: string): string {
  return `/etc/skiff/${name}.toml`;
}

/** What the handler passes skiff besides its type: the cgroup driver, and another OCI runtime than runc. */
export interface HandlerOptions {
  /** `SystemdCgroup = true`, as containerd's runc handler is configured for kubelet's systemd cgroup driver. */
  readonly systemdCgroup?: boolean;
  /** A runc-compatible binary (crun): its options go into ociRuntimeConfigPath(name), which the handler names. */
  readonly ociRuntime?: string;
}

/**
 * skiff's section of containerd's config.toml: the CRI runtime handler `handler` (what a
 * RuntimeClass names) run by skiff. It is appended to a config.toml of the same version. Its
 * `options` table reaches skiff as runtimeoptions.v1.Options (CRI's config_body, since containerd
 * 1.7); with an OCI runtime the table only names a file (config_path, every version), whose text
 * follows as comments.
 */
export function containerdConfigSection(format: ConfigFormat, handler: string, options: HandlerOptions = {}): string {
  const which =
    format === 'v2' ? 'containerd 1.6/1.7, config.toml version = 2' : 'containerd 2.x, config.toml version = 3';
  const table = `plugins.${JSON.stringify(CRI_RUNTIME_PLUGIN[format])}.containerd.runtimes.${handler}`;
  const lines = [
    `# skiff's runtime handler (${which}): append to /etc/containerd/config.toml once, then restart containerd`,
    `[${table}]`,
    `  runtime_type = ${JSON.stringify(RUNTIME_TYPE)}`,
  ];
  const file = options.ociRuntime === undefined ? undefined : ociRuntimeConfigPath(options.ociRuntime);
  const settings = [
    ...(options.ociRuntime === undefined ? [] : [`BinaryName = ${JSON.stringify(options.ociRuntime)}`]),
    ...(options.systemdCgroup === true ? ['SystemdCgroup = true'] : []),
  ];
  if (file !== undefined) {
    lines.push(`  [${table}.options]`, `    ConfigPath = ${JSON.stringify(file)}`);
    lines.push(
      `# ${file}, which the handler's ConfigPath names, must hold (write it as root before the first pod):`,
      ...settings.map((line) => `#   ${line}`),
      `# e.g.: mkdir -p /etc/skiff && printf '${settings.join('\\n')}\\n' > ${file}`,
    );
  } else if (settings.length > 0) {
    lines.push(`  [${table}.options]`, ...settings.map((line) => `    ${line}`));
    if (format === 'v2') {
      lines.push(
        '# containerd 1.6 does not pass this table to skiff (1.7 does): there skiff takes the systemd driver',
        "# from each pod's cgroupsPath, which kubelet's systemd cgroup driver makes a slice:prefix:name",
      );
    }
  }
  lines.push('');
  return lines.join('\n');
}

/** A program name for --oci-runtime: found on containerd's PATH, and the name of its options file. */
export function checkOciRuntime(name: string): string {
  if (!/^[a-z0-9][a-z0-9._-]{0,62}$/i.test(name)) {
    throw new ConfigurationError(
      `--oci-runtime ${JSON.stringify(name)} is not a program name (letters, digits, '.', '_', '-'): give the name of a runc-compatible binary on containerd's PATH, such as crun`,
      'CONTAINERD.BAD_OCI_RUNTIME',
    );
  }
  return name;
}

/** The Kubernetes RuntimeClass whose pods (spec.runtimeClassName) containerd runs with the handler. */
export function runtimeClassManifest(name: string, handler: string): string {
  return [
    'apiVersion: node.k8s.io/v1',
    'kind: RuntimeClass',
    'metadata:',
    `  name: ${name}`,
    `handler: ${handler}`,
    '',
  ].join('\n');
}

/** The format of the containerd on PATH, from `containerd --version` ("containerd <source> v1.6.20 <commit>"). */
export function detectConfigFormat(): ConfigFormat {
  let text: string;
  try {
    text = execFileSync('containerd', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    throw new ConfigurationError(
      'cannot run `containerd --version` (is containerd on PATH?): pass --format v2 (containerd 1.6/1.7) or v3 (containerd 2.x)',
      'CONTAINERD.VERSION_UNKNOWN',
    );
  }
  const major = /\bv?(\d+)\.\d+\.\d+/.exec(text)?.[1];
  if (major === undefined) {
    throw new ConfigurationError(
      `cannot read a version in \`containerd --version\` (${text.trim()}): pass --format v2 (containerd 1.6/1.7) or v3 (containerd 2.x)`,
      'CONTAINERD.VERSION_UNKNOWN',
    );
  }
  return Number(major) >= 2 ? 'v3' : 'v2';
}

/** A handler name containerd and Kubernetes both accept: a DNS label (RuntimeClass's rule). */
export function checkHandler(handler: string): string {
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(handler)) {
    throw new ConfigurationError(
      `--handler ${JSON.stringify(handler)} is not a DNS label: lowercase letters, digits and '-', at most 63`,
      'CONTAINERD.BAD_HANDLER',
    );
  }
  return handler;
}

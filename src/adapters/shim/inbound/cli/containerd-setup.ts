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

/**
 * skiff's section of containerd's config.toml: the CRI runtime handler `handler` (what a
 * RuntimeClass names) run by skiff. It is appended to a config.toml of the same version.
 */
export function containerdConfigSection(format: ConfigFormat, handler: string): string {
  const which =
    format === 'v2' ? 'containerd 1.6/1.7, config.toml version = 2' : 'containerd 2.x, config.toml version = 3';
  return [
    `# skiff's runtime handler (${which}): append to /etc/containerd/config.toml once, then restart containerd`,
    `[plugins.${JSON.stringify(CRI_RUNTIME_PLUGIN[format])}.containerd.runtimes.${handler}]`,
    `  runtime_type = ${JSON.stringify(RUNTIME_TYPE)}`,
    '',
  ].join('\n');
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

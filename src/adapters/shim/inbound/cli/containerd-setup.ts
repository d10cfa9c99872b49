import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError, UsageError } from '../../../../domain/shared/errors';
import { packageRoot } from '../../../shared/helpers/package-info';

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

/** The config.toml an operator appends to, unless `--config-file` names another. */
export const DEFAULT_CONFIG_FILE = '/etc/containerd/config.toml';

/** What the config.toml the section goes into already holds, as far as the section depends on it. */
export interface ConfigFacts {
  /** Whether the file exists: appended to nothing, the section must say its version. */
  readonly exists: boolean;
  /** Whether it names the handler already: a second copy of its table would be a TOML error. */
  readonly hasHandler: boolean;
  /**
   * The CRI default runtime (`default_runtime_name`, runc unless set) when a version 2 file does
   * not define it. containerd 1.6 and 1.7 take a config's `runtimes` table instead of their
   * defaults, not merged with them, so once skiff's handler is in it the CRI plugin fails to load
   * ("no corresponding runtime configured in `containerd.runtimes` for `containerd`
   * `default_runtime_name`"), as with Debian's config.toml, which names no runtime. 2.x merges.
   */
  readonly missingDefaultRuntime?: string;
}

type Table = Record<string, unknown>;
const table = (value: unknown): Table =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Table) : {};

/** The config.toml the section will be appended to, parsed; undefined when there is none. */
export function readContainerdConfig(file: string): Table | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigurationError(
      `cannot read ${file} (${(err as Error).message}): run as root, or name the config with --config-file`,
      'CONTAINERD.CONFIG_UNREADABLE',
    );
  }
  const { parse } = require('smol-toml') as typeof import('smol-toml', { with: { 'resolution-mode': 'require' } });
  try {
    return parse(text);
  } catch (err) {
    throw new ConfigurationError(
      `${file} is not TOML containerd can read (${(err as Error).message.split('\n')[0]}): fix it first, or name another with --config-file`,
      'CONTAINERD.CONFIG_NOT_TOML',
    );
  }
}

/**
 * The format of an existing config.toml, from its `version`: containerd 2.x reads a version 2
 * file (migrating it whole), and a section of the other version in it loses the runtimes the
 * file names in its own (seen with containerd 2.1.9: a version 2 runc handler beside the printed
 * version 3 section was "not configured"). Undefined when it says no version 2 or 3.
 */
export function configFileFormat(config: Table | undefined): ConfigFormat | undefined {
  const version = config?.version;
  return version === 2 ? 'v2' : version === 3 ? 'v3' : undefined;
}

/** ConfigFacts of the config the section goes into (undefined: no file, so the text becomes the whole config). */
export function factsOf(config: Table | undefined, format: ConfigFormat, handler: string): ConfigFacts {
  return config === undefined
    ? { ...configFacts({}, format, handler), exists: false }
    : configFacts(config, format, handler);
}

/** ConfigFacts of a parsed config.toml (its version's CRI plugins: docs/cri.md). */
export function configFacts(config: Table, format: ConfigFormat, handler: string): ConfigFacts {
  const plugins = table(config.plugins);
  const cri = (plugin: string) => table(table(plugins[plugin]).containerd);
  const hasHandler = Object.values(CRI_RUNTIME_PLUGIN).some((plugin) => handler in table(cri(plugin).runtimes));
  if (format !== 'v2') return { exists: true, hasHandler };
  const containerd = cri(CRI_RUNTIME_PLUGIN.v2);
  const defaultName = typeof containerd.default_runtime_name === 'string' ? containerd.default_runtime_name : 'runc';
  const defined = defaultName in table(containerd.runtimes) || defaultName === handler;
  return { exists: true, hasHandler, ...(defined ? {} : { missingDefaultRuntime: defaultName }) };
}

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
  /** Which containerd the format was chosen for, said in the section's first line: "containerd 2.3.4 (containerd --version)". */
  readonly chosenFor?: string;
  /**
   * skiff's shim binary, named under runc's runtime type (`--runc-runtime-type`): containerd 2.0
   * and 2.1 tell kubelet a handler's features only for that type (docs/cri.md, "User
   * namespaces"). The handler's options are then runc's own (BinaryName, SystemdCgroup).
   */
  readonly shimPath?: string;
  /**
   * `sandboxer = "shim"`: pods of the handler without a pause container, skiff serving
   * containerd's Sandbox API (containerd 2.3, version 3 configs: docs/sandbox-api.md).
   */
  readonly sandboxApi?: boolean;
}

/** runc's runtime type, which containerd's own runc handler has. */
const RUNC_RUNTIME_TYPE = 'io.containerd.runc.v2';

/**
 * skiff's section of containerd's config.toml: the CRI runtime handler `handler` (what a
 * RuntimeClass names) run by skiff. It is appended to a config.toml of the same version. Its
 * `options` table reaches skiff as runtimeoptions.v1.Options (CRI's config_body, since containerd
 * 1.7); with an OCI runtime the table only names a file (config_path, every version), whose text
 * follows as comments.
 */
export function containerdConfigSection(
  format: ConfigFormat,
  handler: string,
  options: HandlerOptions = {},
  facts: ConfigFacts = { exists: true, hasHandler: false },
): string {
  const which =
    options.chosenFor ??
    (format === 'v2' ? 'containerd 1.6/1.7, config.toml version = 2' : 'containerd 2.x, config.toml version = 3');
  const runtimes = `plugins.${JSON.stringify(CRI_RUNTIME_PLUGIN[format])}.containerd.runtimes`;
  const table = `${runtimes}.${handler}`;
  const lines = [
    `# skiff's runtime handler (${which}): append to /etc/containerd/config.toml once, then restart containerd`,
    ...(facts.exists ? [] : [`version = ${format === 'v2' ? 2 : 3}`]),
    `[${table}]`,
    ...(options.shimPath === undefined
      ? [`  runtime_type = ${JSON.stringify(RUNTIME_TYPE)}`]
      : [
          "# under runc's runtime type, for containerd 2.0/2.1 to tell kubelet the handler's features (hostUsers:",
          "# false needs them); CRI's restore from a checkpoint archive fails this way (docs/cri.md)",
          `  runtime_type = ${JSON.stringify(RUNC_RUNTIME_TYPE)}`,
          `  runtime_path = ${JSON.stringify(options.shimPath)}`,
        ]),
    ...(options.sandboxApi === true
      ? [
          '# pods without a pause container: skiff serves the Sandbox API, the pod keeper holds the namespaces',
          '# (containerd 2.3; docs/cri.md says what a pod spec can ask of it)',
          // containerd 2.x reads a version 2 file's sandbox_mode (1.7's name) as sandboxer (plugins/cri/runtime/plugin.go).
          format === 'v3' ? '  sandboxer = "shim"' : '  sandbox_mode = "shim"',
        ]
      : []),
  ];
  // runc's options (the runc-typed form) have BinaryName: no file needed.
  const file =
    options.ociRuntime === undefined || options.shimPath !== undefined
      ? undefined
      : ociRuntimeConfigPath(options.ociRuntime);
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
    if (format === 'v2' && options.shimPath === undefined) {
      lines.push(
        '# containerd 1.6 does not pass this table to skiff (1.7 does): there skiff takes the systemd driver',
        "# from each pod's cgroupsPath, which kubelet's systemd cgroup driver makes a slice:prefix:name",
      );
    }
  }
  if (facts.missingDefaultRuntime === 'runc') {
    lines.push(
      "# runc's handler, CRI's default, which this config.toml left to containerd's defaults: containerd 1.x",
      '# drops those defaults for the runtimes a config names, so it is named here too',
      `[${runtimes}.runc]`,
      '  runtime_type = "io.containerd.runc.v2"',
    );
  }
  lines.push('');
  return lines.join('\n');
}

/**
 * --sandboxer: `shim` only where containerd serves a shim's Sandbox API to CRI the way skiff
 * was built for (2.x; tested on 2.3), and not under runc's runtime type, whose shim CRI would
 * then take for runc's. A version 3 config is 2.x's; a version 2 file may be 1.x's, so the
 * PATH's containerd is asked (`detect`) before a version 2 section names it.
 */
export function checkSandboxer(
  sandboxer: string,
  format: ConfigFormat,
  runcRuntimeType: boolean,
  detect: () => DetectedContainerd = detectContainerd,
): boolean {
  if (sandboxer === 'podsandbox') return false;
  if (runcRuntimeType)
    throw new UsageError(
      '--sandboxer shim and --runc-runtime-type do not go together: leave one out',
      'CONFIG.SANDBOXER_RUNC_TYPE',
    );
  if (format === 'v3') return true;
  let version: string;
  try {
    version = detect().version;
  } catch {
    throw new UsageError(
      '--sandboxer shim needs containerd 2.3, and `containerd --version` does not say which containerd reads this version 2 config: pass --format v3 for a 2.x config',
      'CONFIG.SANDBOXER_FORMAT',
    );
  }
  if (Number(version.split('.')[0]) < 2)
    throw new UsageError(
      `--sandboxer shim needs containerd 2.3: containerd ${version} runs pods with the pause container only`,
      'CONFIG.SANDBOXER_FORMAT',
    );
  return true;
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
/** The containerd on the PATH, as `containerd --version` names it, and the config.toml format it reads. */
export interface DetectedContainerd {
  readonly format: ConfigFormat;
  /** "2.3.4", as the version line says it (without a leading v). */
  readonly version: string;
}

export function detectContainerd(): DetectedContainerd {
  let text: string;
  try {
    text = execFileSync('containerd', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    throw new ConfigurationError(
      'cannot run `containerd --version` (is containerd on PATH?): pass --format v2 (containerd 1.6/1.7) or v3 (containerd 2.x)',
      'CONTAINERD.VERSION_UNKNOWN',
    );
  }
  const found = /\bv?((\d+)\.\d+\.\d+)/.exec(text);
  if (found === null) {
    throw new ConfigurationError(
      `cannot read a version in \`containerd --version\` (${text.trim()}): pass --format v2 (containerd 1.6/1.7) or v3 (containerd 2.x)`,
      'CONTAINERD.VERSION_UNKNOWN',
    );
  }
  return { format: Number(found[2]) >= 2 ? 'v3' : 'v2', version: found[1] };
}

/** This package's shim binary, the one containerd finds on its PATH as containerd-shim-skiff-v2. */
export function shimBinaryPath(): string {
  return join(packageRoot(), 'bin', 'containerd-shim-skiff-v2');
}

/**
 * The format `skiff containerd config` prints: --format's, else the config file's own version,
 * else what the PATH's containerd reads; and, when not asked, the line saying which containerd
 * it is for and how that was known.
 */
export function chooseConfigFormat(
  asked: string | undefined,
  config: Table | undefined,
  file: string,
): { format: ConfigFormat; chosenFor?: string } {
  if (asked === 'v2' || asked === 'v3') return { format: asked };
  const version = (format: ConfigFormat) => `config.toml version = ${format === 'v2' ? 2 : 3}`;
  const own = configFileFormat(config);
  if (own !== undefined) {
    // containerd 2.x reads a version 2 file too (it migrates it in memory).
    const which = own === 'v2' ? 'containerd 1.6/1.7, or 2.x' : 'containerd 2.x';
    return { format: own, chosenFor: `${which}, as ${file} says: ${version(own)}` };
  }
  const detected = detectContainerd();
  return {
    format: detected.format,
    chosenFor: `containerd ${detected.version}, as \`containerd --version\` says: ${version(detected.format)}`,
  };
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

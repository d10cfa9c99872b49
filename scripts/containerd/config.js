'use strict';
// The config.toml (version 2, containerd 1.6) of a private containerd: every path it
// writes lives under its own directory, its sockets too, and it never touches the
// machine's containerd (/var/lib/containerd, /run/containerd/containerd.sock).
// Reference: containerd's docs/man/containerd-config.toml.5.md and docs/cri/config.md (1.6).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { layout } = require('./layout');
const { PAUSE_IMAGE } = require('../busybox-image');

/**
 * The CRI runtime handlers (RuntimeClass handler name -> runtime_type) every instance offers:
 * runc's written here, skiff's the section `skiff containerd config` prints (skiffSection).
 */
const RUNTIMES = { runc: 'io.containerd.runc.v2', skiff: 'io.containerd.skiff.v2' };

/**
 * What an operator appends to config.toml: `skiff containerd config` of this checkout, for
 * containerd 1.6, reading the config it goes into (`configFile`), as it reads /etc/containerd's.
 */
function printedSkiffSection(configFile) {
  const run = path.join(__dirname, '../../bin/run.js');
  const args = [run, 'containerd', 'config', '--format', 'v2', '--config-file', configFile];
  return execFileSync(process.execPath, args, { encoding: 'utf8' });
}

/**
 * The same for containerd 2.3 (its bin dir `bin` first on PATH): no --format, so the command
 * decides from the config it goes into, as an operator's run does.
 */
function printedLtsSection(bin, sandboxHandler) {
  const print = (configFile, extra = []) => {
    const run = path.join(__dirname, '../../bin/run.js');
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
    return execFileSync(process.execPath, [run, 'containerd', 'config', '--config-file', configFile, ...extra], {
      encoding: 'utf8',
      env,
    });
  };
  return (configFile) => {
    const first = print(configFile);
    if (sandboxHandler === undefined) return first;
    // The sandbox mode's handler beside it, printed against the config with the first appended, as an operator appends them.
    const withFirst = `${configFile}.with-skiff`;
    fs.writeFileSync(withFirst, `${fs.readFileSync(configFile, 'utf8')}\n${first}`, { mode: 0o600 });
    try {
      return `${first}\n${print(withFirst, ['--handler', sandboxHandler, '--sandboxer', 'shim'])}`;
    } finally {
      fs.rmSync(withFirst, { force: true });
    }
  };
}

/** The section printed for the config text `base` (skiffSection: a text, or a printer given the config's path). */
function skiffSectionFor(base, skiffSection = printedSkiffSection) {
  if (typeof skiffSection === 'string') return skiffSection;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-config-'));
  try {
    fs.writeFileSync(path.join(dir, 'config.toml'), base, { mode: 0o600 });
    return skiffSection(path.join(dir, 'config.toml'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Snapshotters that would probe or claim host filesystems (and log errors for each) and
 * that the busybox image does not need: overlayfs (and native) do.
 */
const UNUSED_PLUGINS = [
  'io.containerd.snapshotter.v1.aufs',
  'io.containerd.snapshotter.v1.btrfs',
  'io.containerd.snapshotter.v1.devmapper',
  'io.containerd.snapshotter.v1.zfs',
];
const CRI = 'io.containerd.grpc.v1.cri';

/** A TOML basic string: JSON's escapes are TOML's. */
const str = (value) => JSON.stringify(value);

/** What every version of the config says alike: the instance's own root, state, sockets and log level. */
function instanceLines(version, p, disabled, options) {
  return [
    `version = ${version}`,
    `root = ${str(p.root)}`,
    `state = ${str(p.state)}`,
    `disabled_plugins = [${disabled.map(str).join(', ')}]`,
    '',
    '[grpc]',
    `  address = ${str(p.address)}`,
    '[ttrpc]',
    `  address = ${str(p.ttrpcAddress)}`,
    '[debug]',
    `  level = ${str(options.logLevel ?? 'info')}`,
    '',
  ];
}

/**
 * The config.toml text for the instance in `dir`. Options: cri (default false: the CRI
 * plugin is disabled), sandboxImage (default the local pause image), logLevel, skiffSection
 * (skiff's runtime handler as `skiff containerd config` printed it, or a function printing it for
 * the path of the config it goes into; default this checkout's).
 */
function containerdConfig(dir, options = {}) {
  if (options.bin !== undefined) return containerdConfigV3(dir, options);
  const p = layout(dir);
  const disabled = [...UNUSED_PLUGINS, ...(options.cri ? [] : [CRI])];
  const lines = [
    ...instanceLines(2, p, disabled, options),
    '[plugins]',
    // Its default is /opt/containerd, outside the instance.
    '  [plugins."io.containerd.internal.v1.opt"]',
    `    path = ${str(`${p.root}/opt`)}`,
    ...criSection(p, options),
  ];
  // Appended as the README tells an operator to, so the CRI suites run pods through the printed text.
  const base = `${lines.join('\n')}\n`;
  return options.cri ? `${base}\n${skiffSectionFor(base, options.skiffSection).trimEnd()}\n` : base;
}

/**
 * Host networking only (the pods the tests run share the host's network), so no CNI plugin
 * is needed: the CNI dirs are the instance's own and empty, and the plugin only reports
 * NetworkReady=false. AppArmor is off so that containerd never loads its profile into the
 * host's kernel; oom_score_adj is clamped to what the caller may set (the sandbox asks -998).
 */
function criSection(p, options) {
  const section = `plugins.${str(CRI)}`;
  return [
    `  [${section}]`,
    `    sandbox_image = ${str(options.sandboxImage ?? PAUSE_IMAGE)}`,
    '    disable_apparmor = true',
    '    enable_selinux = false',
    '    restrict_oom_score_adj = true',
    '    disable_tcp_service = true',
    '    stream_server_address = "127.0.0.1"',
    '    stream_server_port = "0"',
    '    netns_mounts_under_state_dir = true',
    `    [${section}.cni]`,
    `      bin_dir = ${str(p.cniBinDir)}`,
    `      conf_dir = ${str(p.cniConfDir)}`,
    `    [${section}.containerd]`,
    '      snapshotter = "overlayfs"',
    '      default_runtime_name = "runc"',
    `      [${section}.containerd.runtimes.runc]`,
    `        runtime_type = ${str(RUNTIMES.runc)}`,
  ];
}

/**
 * The version 3 config (containerd 2.x: docs/cri/config.md of 2.3) of the same instance: the CRI
 * plugin split in three (runtime, images, the gRPC service), NRI off (its socket would be
 * /var/run/nri's). options.bin is containerd 2.3's bin dir (lts.js); options.sandboxHandler, a
 * handler of skiff's sandbox mode printed beside skiff's own (`--sandboxer shim`: docs/cri.md).
 */
function containerdConfigV3(dir, options) {
  const p = layout(dir);
  const criPlugins = [CRI, 'io.containerd.cri.v1.runtime', 'io.containerd.cri.v1.images'];
  const disabled = [...UNUSED_PLUGINS, 'io.containerd.nri.v1.nri', ...(options.cri ? [] : criPlugins)];
  const runtime = 'plugins."io.containerd.cri.v1.runtime"';
  const lines = [
    ...instanceLines(3, p, disabled, options),
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${str(`${p.root}/opt`)}`,
    ...(options.cri
      ? [
          '[plugins."io.containerd.cri.v1.images"]',
          '  snapshotter = "overlayfs"',
          '  [plugins."io.containerd.cri.v1.images".pinned_images]',
          `    sandbox = ${str(options.sandboxImage ?? PAUSE_IMAGE)}`,
          `[${runtime}]`,
          '  disable_apparmor = true',
          '  enable_selinux = false',
          '  restrict_oom_score_adj = true',
          '  netns_mounts_under_state_dir = true',
          `  [${runtime}.cni]`,
          `    bin_dirs = [${str(p.cniBinDir)}]`,
          `    conf_dir = ${str(p.cniConfDir)}`,
          `  [${runtime}.containerd]`,
          '    default_runtime_name = "runc"',
          `    [${runtime}.containerd.runtimes.runc]`,
          `      runtime_type = ${str(RUNTIMES.runc)}`,
          `[plugins.${str(CRI)}]`,
          '  disable_tcp_service = true',
          '  stream_server_address = "127.0.0.1"',
          '  stream_server_port = "0"',
        ]
      : []),
  ];
  const base = `${lines.join('\n')}\n`;
  if (!options.cri) return base;
  const section = skiffSectionFor(base, options.skiffSection ?? printedLtsSection(options.bin, options.sandboxHandler));
  return `${base}\n${section.trimEnd()}\n`;
}

module.exports = { containerdConfig };

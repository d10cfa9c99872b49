'use strict';
// A pod network for a private containerd's CRI (the podNetwork option), so that pods with a
// network of their own get one as on a node: the reference CNI plugins Debian ships
// (containernetworking-plugins: bridge, host-local, loopback) linked into the instance's CNI
// bin dir, one bridge named after the instance, a /24 of 10.222.0.0/16, no gateway, no NAT
// (nothing in the host's firewall), the address leases kept in the instance's dir.
// teardown.js removes the bridge with the instance.
const { execFileSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const PLUGINS_DIR = '/usr/lib/cni';
const PLUGINS = ['bridge', 'host-local', 'loopback'];

/** Why the pod network cannot be set up here, or undefined. */
function podNetworkMissing() {
  const missing = PLUGINS.filter((name) => !fs.existsSync(path.join(PLUGINS_DIR, name)));
  return missing.length === 0
    ? undefined
    : `the CNI plugins ${missing.join(', ')} are not in ${PLUGINS_DIR} (apt-get install containernetworking-plugins)`;
}

function digest(dir) {
  return createHash('sha256').update(dir).digest('hex');
}

/** The instance's bridge: 11 characters, under the kernel's 15. */
function bridgeOf(dir) {
  return `skf${digest(dir).slice(0, 8)}`;
}

/** Links the plugins and writes the network's config into the instance's CNI dirs (layout.js). */
function setUpPodNetwork(dir, p) {
  const problem = podNetworkMissing();
  if (problem !== undefined) throw new Error(problem);
  for (const name of PLUGINS) fs.symlinkSync(path.join(PLUGINS_DIR, name), path.join(p.cniBinDir, name));
  const subnet = `10.222.${parseInt(digest(dir).slice(8, 10), 16)}.0/24`;
  const config = {
    cniVersion: '1.0.0',
    name: 'skiff-test',
    plugins: [
      {
        type: 'bridge',
        bridge: bridgeOf(dir),
        isGateway: false,
        ipMasq: false,
        ipam: { type: 'host-local', ranges: [[{ subnet }]], dataDir: path.join(dir, 'cni/leases') },
      },
    ],
  };
  fs.writeFileSync(path.join(p.cniConfDir, '10-skiff-test.conflist'), JSON.stringify(config, null, 2), { mode: 0o600 });
}

/** Removes the instance's bridge, if the bridge plugin made one. */
function removeBridge(dir) {
  try {
    execFileSync('ip', ['link', 'del', bridgeOf(dir)], { stdio: 'ignore' });
  } catch {
    // There was none: no pod had a network of its own.
  }
}

module.exports = { bridgeOf, podNetworkMissing, removeBridge, setUpPodNetwork };

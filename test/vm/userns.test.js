'use strict';
// A Kubernetes pod with hostUsers: false (docs/cri.md, "User namespaces"): the CRI user-namespace
// options kubelet sends (NamespaceOption.userns_options, mode POD, one uid and one gid range),
// through the runc handler and through skiff's, side by side. containerd 2.x's overlayfs
// snapshotter then hands the shim the rootfs with uidmap=/gidmap= options, which the shim makes
// idmapped; containerd 1.7 chows a copy of the snapshot instead (WithRemapperLabels without the
// snapshotter's remap-ids), which the suite checks on disk and names. The container sees its
// mapping, its rootfs is its own root's inside and the mapped ids' on the host, exec and the log
// work, and skiff's serving process keeps no descriptor or mount of it afterwards.
//
// A pod in a user namespace needs a pod network (containerd makes its network namespace inside
// that user namespace; kubelet refuses hostNetwork with hostUsers: false): the guests have no
// CNI plugins and no network device, so the suite gives containerd a CNI plugin that configures
// nothing and answers one address, and the pods run with an empty network namespace.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { after, before, describe, it } = require('node:test');
const { criClient } = require('../../scripts/containerd/cri-client');
const { containerConfig, podConfig, removePod } = require('../../scripts/containerd/cri-pods');
const { servingProcesses } = require('../../scripts/containerd/runtime-processes');
const { ADDRESS, SLOW_MS, sh, shimAddress, waitFor } = require('./support');

const HANDLERS = ['runc', 'skiff'];
/** The pod's host ids, as kubelet gives a pod one range of 65536 (a multiple of 65536). */
const HOST_ID = 65536 * 7;
const MAPPING = [{ containerId: 0, hostId: HOST_ID, length: 65536 }];
const USERNS = { mode: 'POD', uids: MAPPING, gids: MAPPING };
const NAMESPACES = { network: 'POD', pid: 'CONTAINER', ipc: 'POD', usernsOptions: USERNS };
const SNAPSHOTS = '/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots';
/** What the container shows of itself, one fact a line. */
const SEEN = [
  'cat /proc/self/uid_map /proc/self/gid_map',
  'id -u; id -g',
  'stat -c %u:%g /bin/busybox /etc /etc/hostname',
  'touch /new-file && stat -c %u:%g /new-file',
].join('; ');

/** A CNI plugin (and the loopback one containerd always runs) that sets nothing up and answers one address. */
const NOOP_CNI = `#!/bin/sh
case "$CNI_COMMAND" in
ADD) cat > /dev/null
  printf '{"cniVersion":"1.0.0","interfaces":[{"name":"%s","sandbox":"%s"}],"ips":[{"interface":0,"address":"10.217.0.2/24"}]}' "$CNI_IFNAME" "$CNI_NETNS" ;;
VERSION) printf '{"cniVersion":"1.0.0","supportedVersions":["0.4.0","1.0.0"]}' ;;
*) cat > /dev/null ;;
esac
`;
const CNI_DIRS = ['/usr/lib/cni', '/opt/cni/bin'];
const CNI_CONF = '/etc/cni/net.d/10-skiff-vm-noop.conflist';

/** The files installNoopCni wrote (none that was there before), removed after the suite. */
const written = [];

function installNoopCni() {
  for (const dir of CNI_DIRS) {
    fs.mkdirSync(dir, { recursive: true });
    for (const name of ['loopback', 'skiff-vm-noop']) {
      const file = path.join(dir, name);
      if (fs.existsSync(file)) continue;
      fs.writeFileSync(file, NOOP_CNI, { mode: 0o755 });
      written.push(file);
    }
  }
  fs.mkdirSync(path.dirname(CNI_CONF), { recursive: true });
  fs.writeFileSync(
    CNI_CONF,
    JSON.stringify({ cniVersion: '1.0.0', name: 'skiff-vm-noop', plugins: [{ type: 'skiff-vm-noop' }] }),
  );
  written.push(CNI_CONF);
}

/** containerd's major version, as `ctr version` prints the server's. */
function containerdMajor() {
  const server = sh('ctr version').stdout.split('Server:')[1] ?? '';
  return Number(/Version:\s*v?(\d+)/.exec(server)?.[1] ?? 0);
}

/** How the image's files became the pod's: a chowned copy of the snapshot on disk, or idmapped mounts. */
function remapping() {
  const owners = fs
    .readdirSync(SNAPSHOTS)
    .map((id) => path.join(SNAPSHOTS, id, 'fs/bin/busybox'))
    .filter((file) => fs.existsSync(file))
    .map((file) => fs.statSync(file).uid);
  return owners.includes(HOST_ID) ? 'a chowned copy of the snapshot' : 'idmapped mounts';
}

/** The host's uid and gid of a process (the real ones of /proc/<pid>/status). */
function hostIds(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return [/^Uid:\s+(\d+)/m, /^Gid:\s+(\d+)/m].map((re) => Number(re.exec(status)[1]));
}

/** What a process holds of a user namespace or a mount tree (an idmapped mount's makings): none after a Create. */
function heldMakings(pid) {
  const held = [];
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let target = '';
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    if (target.startsWith('user:[') || target.startsWith(SNAPSHOTS) || target.includes('.idmapped-lowers'))
      held.push(`${fd} -> ${target}`);
  }
  return held;
}

/** Mounts on a `.idmapped-lowers` directory (skiff's temporary idmapped ones), in pid 1's namespace. */
function idmappedLeftovers() {
  return fs
    .readFileSync('/proc/1/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => (line.split(' ')[4] ?? '').includes('.idmapped-lowers'));
}

const MAJOR = containerdMajor();
/** What each handler showed, compared at the end. */
const seen = {};

before(() => installNoopCni());
after(() => {
  for (const file of written) fs.rmSync(file, { force: true });
});

for (const handler of HANDLERS) {
  describe(`a hostUsers: false pod through the ${handler} handler`, { timeout: 20 * SLOW_MS }, () => {
    const cri = criClient(ADDRESS, { deadlineMs: SLOW_MS });
    const logDirectory = fs.mkdtempSync(`/var/log/vm-userns-${handler}-`);
    let podSandboxId;
    seen[handler] = {};

    before(async () => {
      await waitFor('the CRI plugin to load the CNI config', async () => {
        const { status } = await cri.runtime('Status');
        return status.conditions.some((c) => c.type === 'NetworkReady' && c.status);
      });
    });
    after(async () => {
      if (podSandboxId !== undefined) await removePod(cri, podSandboxId).catch(() => undefined);
      cri.close();
    });

    it('runs the pod in its user namespace: mapping, rootfs owner, host ids, exec and log', async () => {
      const base = podConfig({ name: `userns-${handler}`, uid: `userns-${handler}-${process.pid}`, logDirectory });
      const sandboxConfig = {
        ...base,
        linux: { ...base.linux, securityContext: { ...base.linux.securityContext, namespaceOptions: NAMESPACES } },
      };
      ({ podSandboxId } = await cri.runtime('RunPodSandbox', { config: sandboxConfig, runtimeHandler: handler }));
      const serving = handler === 'skiff' ? servingProcesses(shimAddress('k8s.io', podSandboxId), 'k8s.io') : [];
      if (handler === 'skiff') assert.ok(serving.length > 0, "skiff's serving process");

      const config = containerConfig({
        name: 'c1',
        command: ['sh', '-c', `echo hello from userns; ${SEEN}; exec sleep 100000`],
      });
      config.linux.securityContext.namespaceOptions = NAMESPACES;
      const { containerId } = await cri.runtime('CreateContainer', { podSandboxId, config, sandboxConfig });
      await cri.runtime('StartContainer', { containerId });

      const log = path.join(logDirectory, 'c1_0.log');
      const logged = await waitFor('the container log', () => {
        const text = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
        return text.includes(' stdout F ') && text.trim().split('\n').length >= 9 ? text : undefined;
      });
      const lines = (text) => text.split('\n').filter(Boolean);
      const logLines = lines(logged).map((line) =>
        line
          .replace(/^\S+ stdout F /, '')
          .trim()
          .split(/\s+/)
          .join(' '),
      );
      const exec = await cri.runtime('ExecSync', { containerId, cmd: ['sh', '-c', SEEN], timeout: 60 });
      assert.equal(exec.exitCode, 0, exec.stderr.toString());
      const execLines = lines(exec.stdout.toString()).map((line) => line.trim().split(/\s+/).join(' '));

      const { info } = await cri.runtime('ContainerStatus', { containerId, verbose: true });
      const pid = JSON.parse(info.info).pid;
      seen[handler] = {
        log: logLines,
        exec: execLines,
        host: hostIds(pid),
        rootfsOnHost: sh(`stat -c %u:%g /proc/${pid}/root/bin/busybox`).stdout.trim(),
        remapping: remapping(),
      };
      assert.deepEqual(logLines, [
        'hello from userns',
        `0 ${HOST_ID} 65536`,
        `0 ${HOST_ID} 65536`,
        '0',
        '0',
        '0:0',
        '0:0',
        // /etc/hostname: CRI's bind mount, idmapped by runc from the mount's uidMappings (containerd 2.x's CRI gives them).
        MAJOR >= 2 ? '0:0' : logLines[7],
        '0:0',
      ]);
      assert.deepEqual(execLines, logLines.slice(1));
      assert.deepEqual(seen[handler].host, [HOST_ID, HOST_ID]);
      assert.equal(seen[handler].rootfsOnHost, `${HOST_ID}:${HOST_ID}`);
      // containerd 2.x's snapshotter asks for idmapped mounts; 1.7 chowns a copy (a platform difference, named).
      assert.equal(seen[handler].remapping, MAJOR >= 2 ? 'idmapped mounts' : 'a chowned copy of the snapshot');
      assert.deepEqual(idmappedLeftovers(), [], 'no temporary idmapped directory stays mounted after a Create');
      // skiff's serving process, which lives on for other pods, keeps no user namespace or mount tree of the Create.
      assert.deepEqual(serving.flatMap(heldMakings), []);

      await cri.runtime('StopContainer', { containerId, timeout: 2 });
      await cri.runtime('RemoveContainer', { containerId });
      await removePod(cri, podSandboxId);
      podSandboxId = undefined;
    });
  });
}

// What kubelet reads before it runs a hostUsers: false pod (since 1.30 it refuses one whose runtime
// handler does not report user_namespaces). containerd 2.2 and later ask any shim its features
// (`-info`), and skiff's handler reports runc's; 2.0/2.1 ask only handlers of runc's runtime type
// (internal/cri/server/service.go introspectRuntimeFeatures), so there skiff's handler reports
// none unless configured with `skiff containerd config --runc-runtime-type` (docs/cri.md, "User
// namespaces"): compared from 2.2 on, recorded before.
describe("the handlers' features in CRI Status", () => {
  it("reports for skiff's handler the features of runc's from containerd 2.2 on", async () => {
    const cri = criClient(ADDRESS, { deadlineMs: SLOW_MS });
    try {
      const { runtimeHandlers } = await cri.runtime('Status', { verbose: false });
      const features = (name) => {
        const f = runtimeHandlers.find((h) => h.name === name)?.features ?? {};
        return {
          userNamespaces: f.userNamespaces ?? false,
          recursiveReadOnlyMounts: f.recursiveReadOnlyMounts ?? false,
        };
      };
      const server = sh('ctr version').stdout.split('Server:')[1] ?? '';
      const minor = Number(/Version:\s*v?\d+\.(\d+)/.exec(server)?.[1] ?? 0);
      if (MAJOR >= 2) assert.equal(features('runc').userNamespaces, true);
      if (MAJOR > 2 || (MAJOR === 2 && minor >= 2)) assert.deepEqual(features('skiff'), features('runc'));
      process.stdout.write(
        `# CRI Status on containerd ${MAJOR}.${minor}: runc ${JSON.stringify(features('runc'))}, skiff ${JSON.stringify(features('skiff'))}\n`,
      );
    } finally {
      cri.close();
    }
  });
});

describe('side by side', () => {
  it('skiff shows what the runc handler shows (mapping, ownership inside and on the host, exec, log)', () => {
    assert.deepEqual(seen.skiff, seen.runc);
    process.stdout.write(`# containerd ${MAJOR}.x: the rootfs remapped by ${seen.runc.remapping}\n`);
  });
});

'use strict';
// Pod and container configs as kubelet sends them for a host-network pod (no CNI needed),
// and the three calls that start a pod: RunPodSandbox, CreateContainer, StartContainer.
// Shared by the CRI tests and the benchmark. Field names are the CRI API's (camelCase).
const { BUSYBOX_IMAGE } = require('../busybox-image');

/** kubelet's namespaces for a v1 pod of the host's network that does not share its processes. */
const HOST_NETWORK = { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' };

/**
 * A pod sandbox config: host network, its own pid namespace, the pod's IPC, logs under
 * `logDirectory` (other namespaces when asked: a network of its own needs a pod network,
 * the podNetwork option of a private containerd). No AppArmor (the CRI plugin runs with
 * disable_apparmor); seccomp as asked; a hostname, sysctls and a DNS config ({servers,
 * searches, options}) and a cgroup parent (kubelet's pod cgroup) when given.
 */
function podConfig({
  name,
  uid = `${name}-uid`,
  namespace = 'default',
  logDirectory,
  attempt = 0,
  seccomp = 'Unconfined',
  namespaces = HOST_NETWORK,
  hostname,
  sysctls,
  dnsConfig,
  cgroupParent,
}) {
  return {
    metadata: { name, uid, namespace, attempt },
    ...(hostname !== undefined && { hostname }),
    ...(dnsConfig !== undefined && { dnsConfig }),
    logDirectory,
    linux: {
      ...(sysctls !== undefined && { sysctls }),
      ...(cgroupParent !== undefined && { cgroupParent }),
      securityContext: {
        namespaceOptions: namespaces,
        seccomp: { profileType: seccomp },
      },
    },
  };
}

/**
 * A container config running `command` in `image` (the imported busybox unless named; a
 * checkpoint archive's path asks the CRI plugin for a restore), on a terminal when `tty`,
 * reading an Attach's stdin when `stdin`, with its log at
 * `logPath` (relative to the pod's log directory) and its own pid namespace, as kubelet asks
 * for v1 pods.
 */
function containerConfig({
  name,
  command,
  image = BUSYBOX_IMAGE,
  attempt = 0,
  logPath = `${name}_${attempt}.log`,
  resources,
  labels = {},
  tty = false,
  stdin = false,
  namespaces = HOST_NETWORK,
}) {
  return {
    metadata: { name, attempt },
    image: { image },
    command,
    logPath,
    labels,
    tty,
    // With stdin the container reads what an Attach sends; stdinOnce closes it when that Attach ends.
    stdin,
    stdinOnce: stdin,
    linux: {
      resources,
      securityContext: {
        namespaceOptions: namespaces,
        seccomp: { profileType: 'Unconfined' },
      },
    },
  };
}

/**
 * RunPodSandbox + CreateContainer + StartContainer for each of `containers` (configs as
 * containerConfig takes). Resolves { podSandboxId, containerIds, ms } where ms is the wall
 * time from RunPodSandbox to the last StartContainer reply.
 */
async function startPod(cri, { handler, pod, containers }) {
  const started = process.hrtime.bigint();
  const sandboxConfig = podConfig(pod);
  const { podSandboxId } = await cri.runtime('RunPodSandbox', { config: sandboxConfig, runtimeHandler: handler });
  const containerIds = [];
  for (const spec of containers) {
    const request = { podSandboxId, config: containerConfig(spec), sandboxConfig };
    const { containerId } = await cri.runtime('CreateContainer', request);
    await cri.runtime('StartContainer', { containerId });
    containerIds.push(containerId);
  }
  return { podSandboxId, containerIds, sandboxConfig, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

/** StopPodSandbox + RemovePodSandbox (which stops and removes its containers too). */
async function removePod(cri, podSandboxId) {
  await cri.runtime('StopPodSandbox', { podSandboxId });
  await cri.runtime('RemovePodSandbox', { podSandboxId });
}

module.exports = { podConfig, containerConfig, startPod, removePod };

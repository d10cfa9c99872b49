#!/usr/bin/env node
'use strict';
// A by-hand smoke check of containerd's CRI plugin in a private containerd: a host-network
// pod sandbox (the local pause image), one busybox container in it, ExecSync, the CRI log
// file, then stop and removal, printing each step and its time. The CRI suites
// (test/e2e/cri, docs/cri.md) test this and more; this shows by hand what works on a
// machine; docs/containerd-testing.md records the findings.
//
//   node scripts/containerd/cri-smoke.js [--handler runc|skiff] [--seccomp RuntimeDefault|Unconfined]
//                                        [--apparmor RuntimeDefault|Unconfined] [--leave-running]
//
// --leave-running skips the CRI stop/remove calls, so that the teardown of the private
// containerd is what removes a live pod. Needs root, containerd, runc and busybox-static.
// Speaks CRI through the tests' client (cri-client.js: the vendored runtime.v1 proto over grpc-js).
const path = require('node:path');
const fs = require('node:fs');
const { criClient } = require('./cri-client');
const { podConfig, containerConfig } = require('./cri-pods');
const { PrivateContainerd } = require('./private-containerd');

function flag(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

async function step(what, fn) {
  const started = Date.now();
  const result = await fn();
  console.log(
    `${what}: ${Date.now() - started} ms${result === undefined ? '' : ` ${typeof result === 'string' ? result : JSON.stringify(result)}`}`,
  );
  return result;
}

async function smoke(env, cri) {
  const handler = flag('handler', 'runc');
  const profile = (name) => ({ profileType: flag(name, 'Unconfined') });
  const logDir = path.join(env.paths.dir, 'pod-logs');
  fs.mkdirSync(logDir, { mode: 0o700 });
  await step('Version', () => cri.runtime('Version'));
  await step('Status', async () =>
    (await cri.runtime('Status')).status.conditions
      .map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`)
      .join(', '),
  );
  await step('ListImages', async () => (await cri.image('ListImages')).images.flatMap((i) => i.repoTags).join(' '));
  const sandboxConfig = podConfig({
    name: 'smoke',
    uid: `uid-${process.pid}`,
    logDirectory: logDir,
    seccomp: flag('seccomp', 'Unconfined'),
  });
  const { podSandboxId } = await step(`RunPodSandbox (handler ${handler}, host network)`, () =>
    cri.runtime('RunPodSandbox', { config: sandboxConfig, runtimeHandler: handler }),
  );
  await step('PodSandboxStatus', async () => (await cri.runtime('PodSandboxStatus', { podSandboxId })).status.state);
  const config = containerConfig({
    name: 'c1',
    command: ['sh', '-c', 'echo hello from cri; exec sleep 1000'],
    logPath: 'c1.log',
  });
  config.linux.securityContext = {
    ...config.linux.securityContext,
    seccomp: profile('seccomp'),
    apparmor: profile('apparmor'),
  };
  const { containerId } = await step('CreateContainer', () =>
    cri.runtime('CreateContainer', { podSandboxId, config, sandboxConfig }),
  );
  await step('StartContainer', () => cri.runtime('StartContainer', { containerId }));
  await step('ExecSync', async () => {
    const r = await cri.runtime('ExecSync', {
      containerId,
      cmd: ['sh', '-c', 'echo out; echo err >&2; exit 3'],
      timeout: 5,
    });
    return { stdout: r.stdout.toString(), stderr: r.stderr.toString(), exitCode: r.exitCode };
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  console.log(`log file: ${fs.readFileSync(path.join(logDir, 'c1.log'), 'utf8').trim()}`);
  if (process.argv.includes('--leave-running')) return;
  await step('StopContainer (SIGTERM, 2 s grace)', async () => {
    await cri.runtime('StopContainer', { containerId, timeout: 2 });
    const { status } = await cri.runtime('ContainerStatus', { containerId });
    return `${status.state} exit ${status.exitCode}`;
  });
  await step('RemoveContainer', () => cri.runtime('RemoveContainer', { containerId }));
  await step('StopPodSandbox + RemovePodSandbox', async () => {
    await cri.runtime('StopPodSandbox', { podSandboxId });
    await cri.runtime('RemovePodSandbox', { podSandboxId });
  });
}

async function main() {
  let env;
  await step('private containerd with CRI started', async () => {
    env = await PrivateContainerd.start({ cri: true });
  });
  const cri = criClient(env.address);
  let failure;
  try {
    await step('images imported into k8s.io', () => env.importImages('k8s.io').then(() => undefined));
    await smoke(env, cri);
  } catch (error) {
    failure = error;
  } finally {
    cri.close();
    await step('teardown (nothing left behind)', () => env.stop());
  }
  if (failure !== undefined) {
    console.error(`CRI smoke check failed: ${failure.message}`);
    process.exit(1);
  }
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});

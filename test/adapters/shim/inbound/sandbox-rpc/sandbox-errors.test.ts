import 'reflect-metadata';
import { sandboxHandlers } from '../../../../../src/adapters/shim/inbound/sandbox-rpc/sandbox-handlers';
import { dispatch } from '../../../../../src/adapters/shim/inbound/ttrpc/ttrpc-dispatch';
import { TTRPC_SANDBOX_SERVICE } from '../../../../../src/adapters/shim/wire/ttrpc/service-names';
import { RpcCode } from '../../../../../src/adapters/shim/wire/rpc-code';
import { ttrpc } from '../../../../../src/adapters/shim/wire/proto/generated/ttrpc/request';
import { containerd } from '../../../../../src/adapters/shim/wire/proto/generated/sandbox/v1/sandbox';
import { SandboxService } from '../../../../../src/application/shim/sandbox/sandbox-service';
import { FakeClock } from '../../../../../src/adapters/fakes/shared/fake-clock';
import { FakeSandboxProcesses } from '../../../../../src/adapters/fakes/shim/fake-sandbox-processes';
import { FakeSandboxJournal } from '../../../../../src/adapters/fakes/shim/fake-sandbox-journal';
import { FakeSandboxFiles } from '../../../../../src/adapters/fakes/shim/fake-sandbox-files';
import { runtime } from '../../../../../src/adapters/shim/wire/proto/generated/cri/pod-sandbox-config';
import { google } from '../../../../../src/adapters/shim/wire/proto/generated/google/protobuf/any';

/**
 * The Sandbox service's refusals as containerd reads them on the wire: the one error map of both
 * services (CONTRACT.md's kinds to gRPC codes, wire/rpc-status.ts), each with its one line.
 */
const pb = containerd.runtime.sandbox.v1;
const services = new Map([
  [
    TTRPC_SANDBOX_SERVICE,
    sandboxHandlers(
      new SandboxService(
        new FakeSandboxProcesses(),
        new FakeClock(),
        { os: 'linux', architecture: 'amd64' },
        new FakeSandboxJournal(),
        new FakeSandboxFiles(),
      ),
    ),
  ],
]);
const call = async (method: string, payload: Uint8Array) => {
  const response = await dispatch(
    services,
    new ttrpc.Request({ service: TTRPC_SANDBOX_SERVICE, method, payload: Buffer.from(payload) }),
  );
  return { code: response.status?.code ?? RpcCode.OK, message: response.status?.message ?? '' };
};
const create = (sandbox_id: string, options?: runtime.v1.PodSandboxConfig, netns_path = '/run/netns/cni-1') =>
  new pb.CreateSandboxRequest({
    sandbox_id,
    bundle_path: `/run/b/${sandbox_id}`,
    netns_path,
    ...(options && {
      options: new google.protobuf.Any({ type_url: 'runtime.v1.PodSandboxConfig', value: options.serialize() }),
    }),
  }).serialize();

describe('the Sandbox service on the wire: each refusal is its kind code and one line', () => {
  it('an unknown sandbox: NOT_FOUND for Ping, Platform, Start; NOTREADY, not an error, for SandboxStatus', async () => {
    for (const method of ['PingSandbox', 'Platform', 'StartSandbox'])
      expect(await call(method, new pb.PingRequest({ sandbox_id: 'nope' }).serialize())).toEqual({
        code: RpcCode.NOT_FOUND,
        message: 'sandbox nope not found',
      });
    const status = await call('SandboxStatus', new pb.SandboxStatusRequest({ sandbox_id: 'nope' }).serialize());
    expect(status.code).toBe(RpcCode.OK);
  });

  it('a second CreateSandbox: ALREADY_EXISTS; a pod in a user namespace: FAILED_PRECONDITION; no netns: INVALID_ARGUMENT', async () => {
    expect((await call('CreateSandbox', create('p1'))).code).toBe(RpcCode.OK);
    expect(await call('CreateSandbox', create('p1'))).toEqual({
      code: RpcCode.ALREADY_EXISTS,
      message: 'sandbox p1 already exists',
    });
    const userns = new runtime.v1.PodSandboxConfig({
      linux: new runtime.v1.LinuxPodSandboxConfig({
        security_context: new runtime.v1.LinuxSandboxSecurityContext({
          namespace_options: new runtime.v1.NamespaceOption({
            userns_options: new runtime.v1.UserNamespace({ mode: runtime.v1.NamespaceMode.POD }),
          }),
        }),
      }),
    });
    const refused = await call('CreateSandbox', create('p2', userns));
    expect(refused.code).toBe(RpcCode.FAILED_PRECONDITION);
    expect(refused.message).toMatch(/^sandbox p2: a pod in a user namespace is not served in skiff's sandbox mode yet/);
    expect((await call('CreateSandbox', create('p3', undefined, ''))).code).toBe(RpcCode.INVALID_ARGUMENT);
  });
});

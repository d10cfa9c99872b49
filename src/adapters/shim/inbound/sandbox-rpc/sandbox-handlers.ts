import { SandboxService } from '../../../../application/shim/sandbox/sandbox-service';
import { InvalidArgumentError } from '../../../../domain/shared/errors';
import { containerd } from '../../wire/proto/generated/sandbox/v1/sandbox';
import { types as metricPb } from '../../wire/proto/generated/types/metric';
import { types as platformPb } from '../../wire/proto/generated/types/platform';
import { podSandboxFields } from '../../wire/codec/pod-sandbox-config';
import { fromAny, toTimestamp } from '../../wire/codec/proto-values';
import type { MethodTable } from '../ttrpc/ttrpc-dispatch';

const pb = containerd.runtime.sandbox.v1;

type Decoded<M> = { deserialize(bytes: Uint8Array): M };

/** One method: the request decoded (bytes that do not decode are INVALID_ARGUMENT, as for tasks), the reply encoded. */
function unary<Req, Res extends { serialize(): Uint8Array }>(
  name: string,
  Request: Decoded<Req>,
  call: (request: Req) => Res | Promise<Res>,
): [string, (payload: Buffer) => Promise<Buffer>] {
  return [
    name,
    async (payload) => {
      let request: Req;
      try {
        request = Request.deserialize(payload);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new InvalidArgumentError(`malformed ${name} request: ${reason}`, 'RPC.MALFORMED');
      }
      return Buffer.from((await call(request)).serialize());
    },
  ];
}

/**
 * containerd.runtime.sandbox.v1.Sandbox's nine methods (docs/sandbox-api.md): each request to
 * its SandboxService call and the result back; nothing else.
 */
export function sandboxHandlers(service: SandboxService): MethodTable {
  return new Map([
    unary('CreateSandbox', pb.CreateSandboxRequest, (r) => {
      service.create({
        id: r.sandbox_id,
        bundle: r.bundle_path,
        netnsPath: r.netns_path,
        pod: podSandboxFields(fromAny(r.options, r.has_options)),
      });
      return new pb.CreateSandboxResponse();
    }),
    unary('StartSandbox', pb.StartSandboxRequest, async (r) => {
      const started = await service.start(r.sandbox_id);
      return new pb.StartSandboxResponse({ pid: started.pid, created_at: toTimestamp(started.createdAt) });
    }),
    unary('Platform', pb.PlatformRequest, (r) => {
      const { os, architecture } = service.platform(r.sandbox_id);
      return new pb.PlatformResponse({ platform: new platformPb.Platform({ os, architecture }) });
    }),
    unary('StopSandbox', pb.StopSandboxRequest, async (r) => {
      await service.stop(r.sandbox_id, r.timeout_secs);
      return new pb.StopSandboxResponse();
    }),
    unary('WaitSandbox', pb.WaitSandboxRequest, async (r) => {
      const exit = await service.wait(r.sandbox_id);
      return new pb.WaitSandboxResponse({ exit_status: exit.exitStatus, exited_at: toTimestamp(exit.exitedAt) });
    }),
    unary('SandboxStatus', pb.SandboxStatusRequest, (r) => {
      const status = service.status(r.sandbox_id);
      return new pb.SandboxStatusResponse({
        sandbox_id: status.id,
        pid: status.pid,
        state: status.state,
        created_at: toTimestamp(status.createdAt),
        exited_at: toTimestamp(status.exitedAt),
      });
    }),
    unary('PingSandbox', pb.PingRequest, (r) => {
      service.ping(r.sandbox_id);
      return new pb.PingResponse();
    }),
    unary('ShutdownSandbox', pb.ShutdownSandboxRequest, async (r) => {
      await service.shutdown(r.sandbox_id);
      return new pb.ShutdownSandboxResponse();
    }),
    unary('SandboxMetrics', pb.SandboxMetricsRequest, (r) => {
      const metrics = service.metrics(r.sandbox_id);
      return new pb.SandboxMetricsResponse({
        metrics: new metricPb.Metric({ id: metrics.id, timestamp: toTimestamp(metrics.at) }),
      });
    }),
  ]);
}

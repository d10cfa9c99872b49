import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerModule } from 'inversify';
import { CLOCK } from '../../../../../src/application/shared/ports/clock.port';
import { PROCESS_RUNTIME } from '../../../../../src/application/shim/ports/process-runtime.port';
import { SHIM_HOST } from '../../../../../src/application/shim/ports/shim-host.port';
import { TaskService } from '../../../../../src/application/shim/task/task-service';
import { SystemClock } from '../../../../../src/adapters/shared/outbound/clock/system-clock';
import { GrpcTaskClientFactory } from '../../../../../src/adapters/shim/outbound/task-client/grpc-task-client';
import { RpcTaskClient } from '../../../../../src/adapters/shim/outbound/task-client/rpc-task-client';
import { TtrpcTaskClientFactory } from '../../../../../src/adapters/shim/outbound/task-client/ttrpc-task-client';
import { NativeRuntime } from '../../../../../src/adapters/shim/outbound/process-runtime/native/native-runtime';
import { buildContainer } from '../../../../../src/infrastructure/shared/container';
import { taskClientContract } from '../../../../contract/shim/task-client.contract';
import { startShim } from '../../../../e2e/support/shim-process';
import { FakeShimHost } from '../../../../../src/adapters/fakes/shim/fake-shim-host';
import { InProcessTaskClient } from '../../../../../src/adapters/fakes/shim/in-process-task-client';
import { grpcJsTransport } from './grpc-js-transport';

taskClientContract('in-process (over a native TaskService)', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'skiff-inproc-'));
  const real = new ContainerModule(({ rebindSync }) => {
    rebindSync(PROCESS_RUNTIME).toConstantValue(new NativeRuntime());
    rebindSync(CLOCK).toConstantValue(new SystemClock());
    rebindSync(SHIM_HOST).toConstantValue(new FakeShimHost());
  });
  const service = buildContainer({ shim: { runtime: 'native', stateDir } }, real).get(TaskService);
  return {
    client: new InProcessTaskClient(service),
    close: async () => {
      await service.stopEverything(0);
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
});

taskClientContract('gRPC on node:http2, the client of skiff (over a running shim)', async () => {
  const shim = await startShim();
  const client = new GrpcTaskClientFactory().connect(shim.socket);
  return {
    client,
    close: async () => {
      client.close();
      await shim.stop();
    },
  };
});

// The same calls through grpc-js, the client skiff had before: both clients keep one wire contract.
taskClientContract('gRPC on grpc-js (over a running shim)', async () => {
  const shim = await startShim();
  const client = new RpcTaskClient(grpcJsTransport(shim.socket), shim.socket);
  return {
    client,
    close: async () => {
      client.close();
      await shim.stop();
    },
  };
});

taskClientContract('ttrpc (over a running shim)', async () => {
  const shim = await startShim('native', [], undefined, undefined, 'ttrpc');
  const client = new TtrpcTaskClientFactory().connect(shim.socket);
  return {
    client,
    close: async () => {
      client.close();
      await shim.stop();
    },
  };
});

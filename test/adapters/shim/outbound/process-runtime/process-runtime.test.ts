import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NativeRuntime } from '../../../../../src/adapters/shim/outbound/process-runtime/native/native-runtime';
import { processRuntimeContract } from '../../../../contract/shim/process-runtime.contract';
import { FakeProcessRuntime } from '../../../../../src/adapters/fakes/shim/fake-process-runtime';
import { RuncBundleFactory, runcTestsEnabled } from '../../../../support/runc-bundles';

const stateDir = mkdtempSync(join(tmpdir(), 'skiff-state-'));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

processRuntimeContract('fake', () => new FakeProcessRuntime());
processRuntimeContract('native', () => new NativeRuntime());
if (runcTestsEnabled()) {
  // Loaded only here: the runc runtime makes this process a child subreaper.
  const { RuncRuntime } =
    require('../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-runtime') as typeof import('../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-runtime');
  processRuntimeContract(
    'runc',
    () => new RuncRuntime(join(stateDir, 'runc')),
    () => new RuncBundleFactory(),
  );
}

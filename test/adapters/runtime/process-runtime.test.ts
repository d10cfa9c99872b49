import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NativeRuntime } from '../../../src/adapters/outbound/runtime/native/native-runtime';
import { processRuntimeContract } from '../../contract/process-runtime.contract';
import { FakeProcessRuntime } from '../../fakes/fake-process-runtime';

const stateDir = mkdtempSync(join(tmpdir(), 'skiff-state-'));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

processRuntimeContract('fake', () => new FakeProcessRuntime());
processRuntimeContract('native', () => new NativeRuntime(stateDir));

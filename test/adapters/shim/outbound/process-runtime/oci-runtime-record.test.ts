import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  OCI_RUNTIME_FILE,
  recordedOciRuntimeBinary,
  writeOciRuntimeRecord,
} from '../../../../../src/adapters/shim/outbound/process-runtime/task-layout';

describe("a task dir's OCI runtime record, read back for a takeover", () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-record-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the absolute binary written, and nothing for a record missing or not usable', () => {
    expect(recordedOciRuntimeBinary(dir)).toBeUndefined();
    writeOciRuntimeRecord(dir, { binary: '/usr/bin/crun', root: '/run/x' });
    expect(recordedOciRuntimeBinary(dir)).toBe('/usr/bin/crun');
    writeFileSync(join(dir, OCI_RUNTIME_FILE), '{"binary": "crun"}');
    expect(recordedOciRuntimeBinary(dir)).toBeUndefined();
    writeFileSync(join(dir, OCI_RUNTIME_FILE), 'not json');
    expect(recordedOciRuntimeBinary(dir)).toBeUndefined();
  });
});

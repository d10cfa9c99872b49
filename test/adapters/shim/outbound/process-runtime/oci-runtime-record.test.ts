import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  OCI_RUNTIME_FILE,
  readOciRuntimeRecord,
  writeOciRuntimeRecord,
} from '../../../../../src/adapters/shim/outbound/process-runtime/task-layout';

describe("a task dir's OCI runtime record, read back for a takeover or a Create cut short", () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-record-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the absolute binary, root and bundle written, and nothing for a record missing or not usable', () => {
    expect(readOciRuntimeRecord(dir)).toBeUndefined();
    writeOciRuntimeRecord(dir, { binary: '/usr/bin/crun', root: '/run/x', bundle: '/run/b/c1' });
    expect(readOciRuntimeRecord(dir)).toEqual({ binary: '/usr/bin/crun', root: '/run/x', bundle: '/run/b/c1' });
    writeFileSync(join(dir, OCI_RUNTIME_FILE), '{"binary": "crun", "root": "/run/x"}');
    expect(readOciRuntimeRecord(dir)).toBeUndefined();
    writeFileSync(join(dir, OCI_RUNTIME_FILE), 'not json');
    expect(readOciRuntimeRecord(dir)).toBeUndefined();
  });

  it('reads a record of an earlier version, which names no bundle, without one', () => {
    writeFileSync(join(dir, OCI_RUNTIME_FILE), '{"binary": "/usr/sbin/runc", "root": "/run/x"}');
    expect(readOciRuntimeRecord(dir)).toEqual({ binary: '/usr/sbin/runc', root: '/run/x' });
    writeFileSync(join(dir, OCI_RUNTIME_FILE), '{"binary": "/usr/sbin/runc", "root": "/run/x", "bundle": "b"}');
    expect(readOciRuntimeRecord(dir)).toEqual({ binary: '/usr/sbin/runc', root: '/run/x' });
  });
});

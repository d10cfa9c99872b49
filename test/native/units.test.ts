import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compile, ROOT, SANITIZE } from './support/c-build';
import { SanitizerRuns } from './support/sanitizer-run';

/**
 * The C that can be tested alone, each unit with its test in test/native/units/ (check.h is the
 * harness), compiled with -Werror and the sanitizers and run. A new unit: one line here.
 */
const UNITS: ReadonlyArray<{ test: string; sources: readonly string[] }> = [
  { test: 'json-read.test.c', sources: ['native/common/json-read.c'] },
  { test: 'task-layout.test.c', sources: ['native/common/task-layout.c'] },
  { test: 'flags.test.c', sources: ['native/containerd-shim/flags.c', 'native/containerd-shim/refuse.c'] },
  {
    test: 'sandbox-flags.test.c',
    sources: ['native/containerd-shim/sandbox-flags.c', 'native/containerd-shim/refuse.c'],
  },
  { test: 'delete-response.test.c', sources: ['native/containerd-shim/delete-response.c'] },
  {
    test: 'runtime-info.test.c',
    sources: ['native/containerd-shim/runtime-info.c', 'native/common/proto-wire.c'],
  },
  {
    test: 'bootstrap.test.c',
    sources: ['native/containerd-shim/bootstrap.c', 'native/common/proto-wire.c'],
  },
  { test: 'root-owned.test.c', sources: ['native/containerd-shim/root-owned.c'] },
  {
    test: 'package-code.test.c',
    sources: ['native/containerd-shim/package-code.c', 'native/containerd-shim/root-owned.c'],
  },
  { test: 'ttrpc-wire.test.c', sources: ['native/keeper/ttrpc-wire.c', 'native/common/proto-wire.c'] },
  {
    test: 'state-cache.test.c',
    sources: [
      'native/keeper/state-cache.c',
      'native/keeper/state-learned.c',
      'native/keeper/ttrpc-wire.c',
      'native/common/proto-wire.c',
    ],
  },
  {
    test: 'state-learned.test.c',
    sources: [
      'native/keeper/state-learned.c',
      'native/keeper/state-cache.c',
      'native/keeper/ttrpc-wire.c',
      'native/common/proto-wire.c',
    ],
  },
  { test: 'control-wire.test.c', sources: ['native/keeper/control-wire.c'] },
  { test: 'exec-fifo.test.c', sources: ['native/keeper/exec-fifo.c'] },
  { test: 'preamble.test.c', sources: ['native/common/preamble.c'] },
  // The vectors shared with the TypeScript side (test/vectors/README.md), through the real readers.
  {
    test: 'ttrpc-vectors.test.c',
    sources: [
      'native/keeper/relay.c',
      'native/keeper/state-cache.c',
      'native/keeper/state-learned.c',
      'native/keeper/ttrpc-wire.c',
      'native/common/proto-wire.c',
    ],
  },
  { test: 'control-vectors.test.c', sources: ['native/keeper/control-wire.c'] },
  { test: 'keeper-wanted-vectors.test.c', sources: ['native/containerd-shim/keeper-wanted.c'] },
  {
    test: 'relay-park.test.c',
    sources: [
      'native/keeper/relay.c',
      'native/keeper/state-cache.c',
      'native/keeper/state-learned.c',
      'native/keeper/ttrpc-wire.c',
      'native/common/proto-wire.c',
    ],
  },
];

/** Each unit's argv[1]: the shared vectors' directory (the vector tests read it, the others ignore it). */
const VECTORS = join(ROOT, 'test/vectors');

describe('the C units', () => {
  const out = mkdtempSync(join(tmpdir(), 'skiff-c-units-'));
  const runs = new SanitizerRuns();
  afterAll(() => {
    rmSync(out, { recursive: true, force: true });
    runs.remove();
  });

  it.each(UNITS)('$test passes under the sanitizers', ({ test, sources }) => {
    const binary = join(out, test.replace(/\.c$/, ''));
    const program = {
      sources: [`test/native/units/${test}`, ...sources],
      includeDirs: ['native/common', ...new Set(sources.map((s) => s.slice(0, s.lastIndexOf('/'))))],
      cflags: ['-Wall', '-Wextra', '-Werror'],
      defines: [],
    };
    compile(program, binary, SANITIZE);
    const result = runs.run(binary, [VECTORS]);
    expect({ status: result.status, stderr: result.stderr.toString(), reports: runs.reports() }).toEqual({
      status: 0,
      stderr: '',
      reports: '',
    });
  });
});

import { FailedPreconditionError } from '../../../src/domain/shared/errors';
import { RuncRuntime } from '../../../src/adapters/shim/outbound/process-runtime/runc/runc-runtime';
import { RUNTIME_NAMES, RUNTIMES } from '../../../src/infrastructure/shim/runtimes';
import ShimServe from '../../../src/adapters/commands/shim/serve';
import Run from '../../../src/adapters/commands/run';

// A runc-compatible runtime is runc's adapter with another binary: a missing one is refused
// by its own name, before the shim becomes a subreaper or makes any directory.
describe('an OCI runtime of the registry', () => {
  it('is refused by its own name and binary when that binary is missing', () => {
    const make = () => new RuncRuntime('/nonexistent-state', { name: 'crun', binary: 'skiff-test-no-such-binary' });
    expect(make).toThrow(FailedPreconditionError);
    expect(make).toThrow(
      process.getuid?.() === 0
        ? 'the crun runtime needs the skiff-test-no-such-binary binary, which is not in PATH'
        : 'the crun runtime needs root (skiff-test-no-such-binary makes',
    );
  });

  it('is what --runtime offers, on `skiff shim serve` and `skiff run` alike', () => {
    expect(RUNTIMES.runc).toMatchObject({ kind: 'oci', binary: 'runc' });
    for (const command of [ShimServe, Run]) expect(command.flags.runtime.options).toEqual(RUNTIME_NAMES);
    expect(ShimServe.flags.runtime.description).toBe('Process runtime: native host processes or runc containers.');
  });
});

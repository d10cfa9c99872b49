import { checkOverrides, hasOverrides, ProcessOverrides } from '../../../domain/shim/process-overrides';
import { assertValidId } from '../../../domain/shim/task-id';
import { BundleWriter } from '../ports/bundle-writer.port';
import { LaunchedShim, ShimLauncher } from '../ports/shim-launcher.port';

export interface RunInput {
  readonly id: string;
  readonly bundle: string;
  readonly runtime: string;
  readonly overrides: ProcessOverrides;
}

export interface PreparedRun {
  readonly shim: LaunchedShim;
  /** The bundle to create the task from: the user's, or a copy with the overrides. */
  readonly bundle: string;
}

/**
 * The start of every `skiff run`: the input judged before anything is made (the id
 * names the run's directory), the run's shim launched, the overrides written into a
 * bundle of the run's own. A failure after the launch stops the shim again.
 */
export async function prepareRun(
  launcher: ShimLauncher,
  writer: BundleWriter,
  input: RunInput,
  boundToCaller: boolean,
): Promise<PreparedRun> {
  assertValidId(input.id, 'task id');
  checkOverrides(input.overrides);
  await writer.check(input.bundle);
  const shim = await launcher.launch({ id: input.id, runtime: input.runtime, boundToCaller });
  try {
    const bundle = hasOverrides(input.overrides)
      ? await writer.derive(input.bundle, shim.dir, input.overrides)
      : input.bundle;
    return { shim, bundle };
  } catch (err) {
    await shim.stop();
    throw err;
  }
}

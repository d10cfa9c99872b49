import { InvalidArgumentError } from '../../../../../domain/shared/errors';
import { containerd } from '../../../wire/proto/generated/containerd/runc';
import { findInPath, DEFAULT_PATH } from '../../../os/find-executable';
import { runcMissingError } from './runc-cli';

export const RUNC_OPTIONS_TYPE_URL = 'containerd.runc.v1.Options';

/** What skiff takes from containerd.runc.v1.Options: the runc binary and the cgroup driver. */
export interface RuncOptions {
  /** An absolute path, or undefined for the runtime's own runc. */
  readonly binary: string | undefined;
  readonly systemdCgroup: boolean;
}

/**
 * Reads Create's runtime options as containerd's runc shim does for `binary_name` and
 * `systemd_cgroup`. `root` is not taken: skiff keeps every container under its own runc
 * root, where containerd's cleanup through containerd-shim-skiff-v2 `delete` finds it.
 */
export function readRuncOptions(
  options: { readonly typeUrl: string; readonly value: Uint8Array } | undefined,
  subject: string,
): RuncOptions {
  if (options === undefined || options.value.length === 0) return { binary: undefined, systemdCgroup: false };
  if (options.typeUrl !== RUNC_OPTIONS_TYPE_URL) {
    throw new InvalidArgumentError(
      `${subject}: runtime options of type ${JSON.stringify(options.typeUrl)} are not understood; send ${RUNC_OPTIONS_TYPE_URL} or none`,
      'RUNC.OPTIONS_TYPE',
    );
  }
  let decoded: containerd.runc.v1.Options;
  try {
    decoded = containerd.runc.v1.Options.deserialize(options.value);
  } catch (err) {
    throw new InvalidArgumentError(
      `${subject}: runtime options do not decode (${(err as Error).message})`,
      'RUNC.OPTIONS',
    );
  }
  let binary: string | undefined;
  if (decoded.binary_name !== '') {
    binary = decoded.binary_name.includes('/')
      ? decoded.binary_name
      : findInPath(decoded.binary_name, process.env.PATH ?? DEFAULT_PATH);
    if (binary === undefined) throw runcMissingError(`(binary_name ${decoded.binary_name}) is not in PATH`);
  }
  return { binary, systemdCgroup: decoded.systemd_cgroup };
}

import { isAbsolute } from 'node:path';
import { InvalidArgumentError } from '../../../../../domain/shared/errors';
import { containerd } from '../../../wire/proto/generated/containerd/runc';

/** What containerd's clients send in CheckpointTaskRequest.options, whatever the runtime type. */
export const CHECKPOINT_OPTIONS_TYPE_URL = 'containerd.runc.v1.CheckpointOptions';

/** runc's `--manage-cgroups-mode` values. */
const CGROUPS_MODES = ['soft', 'full', 'strict', 'ignore'];

/**
 * A checkpoint's options as containerd's runc shim reads them (runc/container.go, Checkpoint):
 * containerd.runc.v1.CheckpointOptions. `image_path` is containerd's own (the directory it then
 * hands the shim as the request's path).
 */
export interface CheckpointRequest {
  /** Stop the container once dumped (criu kills it): runc without `--leave-running`. */
  readonly exit: boolean;
  readonly openTcp: boolean;
  readonly externalUnixSockets: boolean;
  readonly terminal: boolean;
  readonly fileLocks: boolean;
  readonly emptyNamespaces: readonly string[];
  /** '' = runc's default (soft). */
  readonly cgroupsMode: string;
  /** criu's work directory, kept afterwards ('' = the task's own, removed afterwards). */
  readonly workPath: string;
}

export const DEFAULT_CHECKPOINT: CheckpointRequest = {
  exit: false,
  openTcp: false,
  externalUnixSockets: false,
  terminal: false,
  fileLocks: false,
  emptyNamespaces: [],
  cgroupsMode: '',
  workPath: '',
};

/**
 * Reads CheckpointTaskRequest.options: none is a plain `--leave-running` dump; anything but
 * CheckpointOptions, or values runc would refuse after the container was frozen, is
 * InvalidArgument naming the task and the option.
 */
export function readCheckpointOptions(
  options: { readonly typeUrl: string; readonly value: Uint8Array } | undefined,
  subject: string,
): CheckpointRequest {
  if (options === undefined || (options.typeUrl === '' && options.value.length === 0)) return DEFAULT_CHECKPOINT;
  if (options.typeUrl !== CHECKPOINT_OPTIONS_TYPE_URL) {
    throw new InvalidArgumentError(
      `checkpoint of ${subject}: options of type ${JSON.stringify(options.typeUrl)} are not understood; send ${CHECKPOINT_OPTIONS_TYPE_URL} or none`,
      'CHECKPOINT.OPTIONS_TYPE',
    );
  }
  let decoded: containerd.runc.v1.CheckpointOptions;
  try {
    decoded = containerd.runc.v1.CheckpointOptions.deserialize(options.value);
  } catch (err) {
    throw new InvalidArgumentError(
      `checkpoint of ${subject}: options do not decode (${(err as Error).message})`,
      'CHECKPOINT.OPTIONS',
    );
  }
  if (decoded.cgroups_mode !== '' && !CGROUPS_MODES.includes(decoded.cgroups_mode)) {
    throw new InvalidArgumentError(
      `checkpoint of ${subject}: cgroups_mode ${JSON.stringify(decoded.cgroups_mode)} is not one of ${CGROUPS_MODES.join(', ')}`,
      'CHECKPOINT.OPTIONS',
    );
  }
  if (decoded.work_path !== '' && !isAbsolute(decoded.work_path)) {
    throw new InvalidArgumentError(
      `checkpoint of ${subject}: work_path ${JSON.stringify(decoded.work_path)} is not an absolute path`,
      'CHECKPOINT.OPTIONS',
    );
  }
  return {
    exit: decoded.exit,
    openTcp: decoded.open_tcp,
    externalUnixSockets: decoded.external_unix_sockets,
    terminal: decoded.terminal,
    fileLocks: decoded.file_locks,
    emptyNamespaces: decoded.empty_namespaces,
    cgroupsMode: decoded.cgroups_mode,
    workPath: decoded.work_path,
  };
}

/** `runc checkpoint`'s arguments for a request, as go-runc's CheckpointOpts.args makes them for the runc shim. */
export function checkpointArgs(request: CheckpointRequest, imagePath: string, workPath: string): string[] {
  const args = ['checkpoint', '--image-path', imagePath, '--work-path', workPath];
  if (!request.exit) args.push('--leave-running');
  if (request.openTcp) args.push('--tcp-established');
  if (request.externalUnixSockets) args.push('--ext-unix-sk');
  if (request.terminal) args.push('--shell-job');
  if (request.cgroupsMode !== '') args.push('--manage-cgroups-mode', request.cgroupsMode);
  if (request.fileLocks) args.push('--file-locks');
  for (const ns of request.emptyNamespaces) args.push('--empty-ns', ns);
  return args;
}

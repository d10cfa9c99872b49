import { isAbsolute, resolve } from 'node:path';
import { InvalidArgumentError } from '../../../../../domain/shared/errors';
import { containerd } from '../../../wire/proto/generated/containerd/runc';
import { runtimeoptions } from '../../../wire/proto/generated/containerd/runtimeoptions';
import { containerd as runctypes } from '../../../wire/proto/generated/containerd/runctypes';
import { parseTomlRuncOptions } from './runc-options-toml';
import { findInPath, DEFAULT_PATH, isExecutableFile } from '../../../os/find-executable';
import { runcMissingError } from './runc-cli';
import { readRegularFile, UnsafeFileError } from '../../../../shared/helpers/no-follow-file';

export const RUNC_OPTIONS_TYPE_URL = 'containerd.runc.v1.Options';
/** What containerd sends a runtime type other than runc's: a TOML text, or the path of a TOML file. */
const RUNTIME_OPTIONS_TYPE_URL = 'runtimeoptions.v1.Options';
/**
 * What `ctr run --uidmap/--gidmap` (and --no-pivot) send a runtime type other than runc's:
 * the v1 linux runtime's CreateOptions (containerd's WithUIDOwner, WithGIDOwner).
 */
const CREATE_OPTIONS_TYPE_URL = 'containerd.linux.runc.CreateOptions';
/** CRI's name, in errors, for a config_body: the runtime handler's `options` table in config.toml. */
const HANDLER_OPTIONS = "the handler's options";
const MAX_OPTIONS_FILE = 1 << 20;

/** What skiff takes from containerd.runc.v1.Options: the runc binary and the cgroup driver. */
export interface RuncOptions {
  /** An absolute path, or undefined for the runtime's own runc. */
  readonly binary: string | undefined;
  readonly systemdCgroup: boolean;
  /**
   * The owner the process's stdio is given (IoUid, IoGid; 0 = root, left as it is): a container
   * whose root is mapped to another host id can then reopen its stdio, /dev/stdout, as through
   * containerd's runc shim, which makes its pipes theirs (stdio/direct-stdio.ts).
   */
  readonly ioUid?: number;
  readonly ioGid?: number;
  /** criu's work directory for a restore (CriuWorkPath), kept afterwards; undefined = the task's own. */
  readonly criuWorkPath?: string;
}

/**
 * Reads Create's runtime options: containerd.runc.v1.Options as containerd's runc shim does for
 * `binary_name` and `systemd_cgroup`, or runtimeoptions.v1.Options, whose TOML (the file
 * `config_path` names, relative to the task's bundle, else `config_body`) uses the same options by
 * their Go names (runc-options-toml.ts). `root` is not taken: skiff keeps every container under
 * its own runc root, where containerd's cleanup through containerd-shim-skiff-v2 `delete` finds it.
 */
export function readRuncOptions(
  options: { readonly typeUrl: string; readonly value: Uint8Array } | undefined,
  subject: string,
  bundle?: string,
): RuncOptions {
  if (options === undefined || options.value.length === 0) return { binary: undefined, systemdCgroup: false };
  if (options.typeUrl === RUNTIME_OPTIONS_TYPE_URL) return readTomlOptions(options.value, subject, bundle);
  if (options.typeUrl === CREATE_OPTIONS_TYPE_URL) return readCreateOptions(options.value, subject);
  if (options.typeUrl !== RUNC_OPTIONS_TYPE_URL) {
    throw new InvalidArgumentError(
      `${subject}: runtime options of type ${JSON.stringify(options.typeUrl)} are not understood; send ${RUNC_OPTIONS_TYPE_URL}, ${RUNTIME_OPTIONS_TYPE_URL}, ${CREATE_OPTIONS_TYPE_URL} or none`,
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
    binary = lookUpBinary(decoded.binary_name);
    if (binary === undefined) throw runcMissingError(`(binary_name ${decoded.binary_name}) is not in PATH`);
  }
  return {
    binary,
    systemdCgroup: decoded.systemd_cgroup,
    ioUid: decoded.io_uid || undefined,
    ioGid: decoded.io_gid || undefined,
    criuWorkPath: decoded.criu_work_path || undefined,
  };
}

/** CreateOptions: the stdio's owner; the rest (no_pivot_root, criu paths, ...) is not acted on, as runc's options' are not. */
function readCreateOptions(value: Uint8Array, subject: string): RuncOptions {
  let decoded: runctypes.linux.runc.CreateOptions;
  try {
    decoded = runctypes.linux.runc.CreateOptions.deserialize(value);
  } catch (err) {
    throw new InvalidArgumentError(
      `${subject}: runtime options (${CREATE_OPTIONS_TYPE_URL}) do not decode (${(err as Error).message})`,
      'RUNC.OPTIONS',
    );
  }
  return {
    binary: undefined,
    systemdCgroup: false,
    ioUid: decoded.io_uid || undefined,
    ioGid: decoded.io_gid || undefined,
  };
}

/** A runtime binary as options name it: a path as given, else looked up in the shim's PATH. */
function lookUpBinary(name: string): string | undefined {
  return name.includes('/') ? name : findInPath(name, process.env.PATH ?? DEFAULT_PATH);
}

/**
 * runtimeoptions.v1.Options: the TOML of config_path's file (which wins, as in containerd), else of
 * config_body. Every error is an InvalidArgument naming the task, the file (or the handler's
 * options) and the key.
 */
function readTomlOptions(value: Uint8Array, subject: string, bundle: string | undefined): RuncOptions {
  let decoded: runtimeoptions.v1.Options;
  try {
    decoded = runtimeoptions.v1.Options.deserialize(value);
  } catch (err) {
    throw new InvalidArgumentError(
      `${subject}: runtime options (${RUNTIME_OPTIONS_TYPE_URL}) do not decode (${(err as Error).message})`,
      'RUNC.OPTIONS',
    );
  }
  let source = HANDLER_OPTIONS;
  let text: string;
  if (decoded.config_path !== '') {
    // A shim started by containerd runs in the task's bundle: a relative path is the bundle's.
    const path =
      isAbsolute(decoded.config_path) || bundle === undefined
        ? decoded.config_path
        : resolve(bundle, decoded.config_path);
    source = `runtime options file ${path}`;
    text = readOptionsFile(path, subject);
  } else {
    text = Buffer.from(decoded.config_body).toString('utf8');
  }
  try {
    const toml = parseTomlRuncOptions(text, source);
    let binary: string | undefined;
    if (toml.BinaryName !== undefined && toml.BinaryName !== '') {
      binary = lookUpBinary(toml.BinaryName);
      if (binary === undefined || !isExecutableFile(binary)) {
        const where = toml.BinaryName.includes('/')
          ? 'is not an executable file'
          : `is not in PATH (${process.env.PATH ?? DEFAULT_PATH})`;
        throw new InvalidArgumentError(
          `${source}: BinaryName ${JSON.stringify(toml.BinaryName)} ${where}`,
          'RUNC.OPTIONS_TOML',
        );
      }
    }
    return {
      binary,
      systemdCgroup: toml.SystemdCgroup ?? false,
      criuWorkPath: toml.CriuWorkPath === undefined || toml.CriuWorkPath === '' ? undefined : toml.CriuWorkPath,
    };
  } catch (err) {
    if (err instanceof InvalidArgumentError) throw new InvalidArgumentError(`${subject}: ${err.message}`, err.code);
    throw err;
  }
}

/**
 * Read on the serving process's event loop at each Create: the file containerd's config names (a
 * link to it is followed, as containerd's runc shim follows one), never waited on (a FIFO) or
 * read past 1 MiB (a device), through the no-follow-file helper.
 */
function readOptionsFile(path: string, subject: string): string {
  const unreadable = (why: string) =>
    new InvalidArgumentError(`${subject}: runtime options file ${path} cannot be read (${why})`, 'RUNC.OPTIONS_FILE');
  let text: string | undefined;
  try {
    text = readRegularFile(path, { limit: MAX_OPTIONS_FILE, followLink: true });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (err instanceof UnsafeFileError) throw unreadable('not a regular file');
    if (e.code === undefined) {
      throw new InvalidArgumentError(
        `${subject}: runtime options file ${path} is larger than 1 MiB`,
        'RUNC.OPTIONS_FILE',
      );
    }
    throw unreadable(e.code === 'EISDIR' ? 'a directory' : e.code);
  }
  if (text === undefined) throw unreadable('no such file');
  return text;
}

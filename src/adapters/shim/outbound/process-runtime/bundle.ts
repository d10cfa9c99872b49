import { statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { InvalidArgumentError } from '../../../../domain/shared/errors';
import { OciSpec, parseOciSpec } from '../../../../domain/shim/oci-spec';
import { readRegularFile, unreadableReason } from '../../../shared/helpers/no-follow-file';

/** A spec with a large seccomp profile and many mounts is tens of KiB: anything near this is no spec. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** A bundle's config.json: the parts skiff reads, and the whole JSON object (runc needs more). */
export interface BundleConfig {
  readonly spec: OciSpec;
  readonly json: Readonly<Record<string, unknown>>;
}

/**
 * Reads and checks a bundle's config.json (shared by both runtimes). Every problem is
 * InvalidArgument naming the task and the path.
 */
export function readBundleSpec(id: string, bundle: string): OciSpec {
  return readBundleConfig(id, bundle).spec;
}

export function readBundleConfig(id: string, bundle: string): BundleConfig {
  return readBundle(bundle, `task ${JSON.stringify(id)}: `);
}

/**
 * The same checks for a bundle no task has been made from yet (`skiff run` checks its
 * --bundle before it starts a shim): the messages name the bundle only.
 */
export function checkBundle(bundle: string): void {
  readBundle(bundle, '');
}

function readBundle(bundle: string, subject: string): BundleConfig {
  if (bundle === '' || !isAbsolute(bundle)) {
    throw new InvalidArgumentError(
      `${subject}bundle ${JSON.stringify(bundle)} must be an absolute directory path`,
      'BUNDLE.PATH',
    );
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(bundle).isDirectory();
  } catch {
    throw new InvalidArgumentError(`${subject}bundle ${bundle} does not exist`, 'BUNDLE.MISSING');
  }
  if (!isDirectory) {
    throw new InvalidArgumentError(`${subject}bundle ${bundle} is not a directory`, 'BUNDLE.NOT_DIRECTORY');
  }
  const configPath = join(bundle, 'config.json');
  let text: string | undefined;
  try {
    // On the serving process's event loop: a FIFO or a device there must not stop it (no-follow-file.ts).
    text = readRegularFile(configPath, { limit: MAX_CONFIG_BYTES });
  } catch (err) {
    throw new InvalidArgumentError(
      `${subject}${configPath} ${unreadableReason(err)}; a bundle holds an OCI config.json, a regular file`,
      'BUNDLE.NO_CONFIG',
    );
  }
  if (text === undefined) {
    throw new InvalidArgumentError(
      `${subject}${configPath} is missing or unreadable; a bundle holds an OCI config.json`,
      'BUNDLE.NO_CONFIG',
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new InvalidArgumentError(
      `${subject}${configPath} is not valid JSON (${(err as Error).message})`,
      'BUNDLE.BAD_JSON',
    );
  }
  return { spec: parseOciSpec(json, `${subject}${configPath}`), json: json as Record<string, unknown> };
}

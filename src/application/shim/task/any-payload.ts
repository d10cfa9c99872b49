import { InvalidArgumentError } from '../../../domain/shared/errors';
import { AnyPayload } from './task-messages';

/** type_url of an OCI Process carried as JSON (containerd's exec spec; docs/shim-contract.md, "The RPCs"). */
export const OCI_PROCESS_TYPE_URL = 'types.containerd.io/opencontainers/runtime-spec/1/Process';
/** type_url of OCI LinuxResources carried as JSON (containerd's Update payload). */
export const OCI_RESOURCES_TYPE_URL = 'types.containerd.io/opencontainers/runtime-spec/1/LinuxResources';

/**
 * Decodes an Any whose value is JSON of the OCI type named by `expectedTypeUrl`.
 * The type_url may carry a host prefix (`type.googleapis.com/...`); its tail must match.
 */
export function decodeJsonAny(payload: AnyPayload, expectedTypeUrl: string, what: string): unknown {
  const tail = expectedTypeUrl.slice(expectedTypeUrl.indexOf('/opencontainers/'));
  if (payload.typeUrl !== expectedTypeUrl && !payload.typeUrl.endsWith(tail)) {
    throw new InvalidArgumentError(
      `${what} has type_url ${JSON.stringify(payload.typeUrl)}; expected ${JSON.stringify(expectedTypeUrl)} holding JSON`,
      'ANY.WRONG_TYPE',
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(payload.value);
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidArgumentError(`${what} is not valid UTF-8 JSON`, 'ANY.BAD_JSON');
  }
}

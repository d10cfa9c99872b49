import { FlagSpecs } from '../../../shared/inbound/cli/flag-specs';

/**
 * `--domain` and `--context`: the flags of every command that signs in somewhere
 * (AuthCommand's baseFlags), read by the fast path of `auth token|status` too.
 */
export const TARGET_FLAGS = {
  domain: {
    type: 'string',
    description: 'Domain of the platform (services at auth.<domain>, src.<domain>, projects.<domain>).',
  },
  context: {
    type: 'string',
    description: 'Context to use instead of the current one (see `skiff config get-contexts`).',
  },
} as const satisfies FlagSpecs;

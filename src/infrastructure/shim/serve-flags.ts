import { FlagSpecs } from '../../adapters/shared/inbound/cli/flag-specs';
import { ADDRESS_VARIABLE } from './shim-config';
import { DEFAULT_RUNTIME, RUNTIME_NAMES, runtimeChoices } from './runtimes';

/**
 * The flags of `skiff shim serve`, as data: the command builds its oclif flags from
 * them and the fast path that binds the socket first (entry/shim-listen.ts) reads argv with
 * them. --run-dir and --lifeline are what `skiff run` gives its shims.
 */
export const SERVE_FLAGS = {
  address: {
    type: 'string',
    env: ADDRESS_VARIABLE,
    description:
      'Path of the unix socket to serve (unix:/path also accepted) ' +
      '[default: $XDG_RUNTIME_DIR/skiff/shim.sock, /run/skiff/shim.sock as root, else /tmp/skiff-<uid>/shim.sock].',
  },
  runtime: {
    type: 'string',
    options: RUNTIME_NAMES,
    default: DEFAULT_RUNTIME,
    description: `Process runtime: ${runtimeChoices()}.`,
  },
  'run-dir': {
    type: 'string',
    hidden: true,
    description: 'The shim of one `skiff run`: the run directory, removed when the shim exits.',
  },
  lifeline: {
    type: 'boolean',
    hidden: true,
    default: false,
    description: 'Exit, ending every task, when standard input reaches end-of-file (`skiff run --rm`).',
  },
  'state-dir': {
    type: 'string',
    description:
      'Directory for per-task files [default: $XDG_RUNTIME_DIR/skiff/state, /run/skiff/state as root, else /tmp/skiff-<uid>/state].',
  },
} as const satisfies FlagSpecs;

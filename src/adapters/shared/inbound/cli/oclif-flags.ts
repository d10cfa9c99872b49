import { Flags, Interfaces } from '@oclif/core';
import { BooleanFlagSpec, FlagSpec, FlagSpecs } from './flag-specs';

/** The oclif flags of a table: a string flag's value may be absent when it has no default. */
export type OclifFlags<S extends FlagSpecs> = {
  [K in keyof S]: S[K] extends BooleanFlagSpec
    ? Interfaces.BooleanFlag<boolean>
    : Interfaces.OptionFlag<string | undefined>;
};

/** The settings of `spec` that are set: oclif tells an absent setting from an undefined one. */
function settings(spec: FlagSpec): Record<string, unknown> {
  const { type: _type, ...rest } = spec;
  return Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
}

/** oclif's flags for a table of flag-specs.ts (a command's `flags` or `baseFlags`). */
export function oclifFlags<S extends FlagSpecs>(specs: S): OclifFlags<S> {
  const flags: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    flags[name] = spec.type === 'boolean' ? Flags.boolean(settings(spec)) : Flags.string(settings(spec));
  }
  return flags as OclifFlags<S>;
}

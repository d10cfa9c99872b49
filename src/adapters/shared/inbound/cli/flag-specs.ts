/**
 * A command's flags as plain data, in a module that does not load oclif: the command
 * builds its oclif flags from the table (oclif-flags.ts) and a fast path that skips
 * oclif reads argv with the same table (fast-argv.ts), so the two cannot drift apart.
 */
export interface StringFlagSpec {
  readonly type: 'string';
  readonly description: string;
  /** The only values accepted. */
  readonly options?: readonly string[];
  readonly default?: string;
  /** The environment variable oclif reads when the flag is not given. */
  readonly env?: string;
  readonly hidden?: boolean;
}

export interface BooleanFlagSpec {
  readonly type: 'boolean';
  readonly description: string;
  readonly default?: boolean;
  readonly hidden?: boolean;
}

export type FlagSpec = StringFlagSpec | BooleanFlagSpec;
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** The values argv gave, by flag name: a string, or true for a boolean flag; absent when not given. */
export type FlagValues<S extends FlagSpecs> = {
  readonly [K in keyof S]?: S[K] extends BooleanFlagSpec ? true : string;
};

/** The `--json` flag oclif adds to a command with `enableJsonFlag`, for the fast paths. */
export const JSON_FLAG: BooleanFlagSpec = { type: 'boolean', description: 'Format output as json.' };

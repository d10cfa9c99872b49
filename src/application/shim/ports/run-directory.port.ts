export const RUN_DIRECTORY = Symbol('RunDirectory');

/** A run that `skiff run` started: its task id and its shim's socket. */
export interface RunEntry {
  readonly id: string;
  readonly address: string;
}

/** Where the runs of `skiff run` are found again (by `skiff task ls` and `skiff task --id`). */
export interface RunDirectory {
  /** list: every run whose directory exists, by id. */
  list(): RunEntry[];
  /** addressOf: the socket of the run with this id, undefined if there is none. */
  addressOf(id: string): string | undefined;
}

import { existsSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { RunDirectory, RunEntry } from '../../../../application/shim/ports/run-directory.port';
import { checkPrivateDir } from '../../../shared/helpers/private-dir';
import { runDir, runSocket } from '../../os/run-layout';

/** The runs of `skiff run`, one directory each under `runs` (see run-layout.ts). */
export class FsRunDirectory implements RunDirectory {
  constructor(private readonly runs: string) {}

  list(): RunEntry[] {
    this.checkPrivate();
    let ids: string[];
    try {
      ids = readdirSync(this.runs).sort();
    } catch {
      return [];
    }
    return ids.map((id) => ({ id, address: runSocket(runDir(this.runs, id)) }));
  }

  addressOf(id: string): string | undefined {
    // An id that is not a plain name never names a run (and never leaves the directory).
    if (id === '' || id.includes('/') || id === '.' || id === '..') return undefined;
    this.checkPrivate();
    const address = runSocket(runDir(this.runs, id));
    return existsSync(address) ? address : undefined;
  }

  /** A socket found in a directory someone else controls could be theirs. */
  private checkPrivate(): void {
    checkPrivateDir(dirname(this.runs));
    checkPrivateDir(this.runs);
  }
}

import type { PodFiles } from '../../../domain/shim/pod-files';
import type { SandboxFiles } from '../../../application/shim/ports/sandbox-files.port';

/** The pods' files in memory, by sandbox id: the application's tests read what was made and removed. */
export class FakeSandboxFiles implements SandboxFiles {
  readonly made = new Map<string, PodFiles>();
  readonly removed: string[] = [];

  make(id: string, _bundle: string, files: PodFiles): void {
    this.made.set(id, files);
  }

  remove(id: string): void {
    this.made.delete(id);
    this.removed.push(id);
  }
}

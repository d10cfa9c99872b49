import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The subcommands the tests look for in a logged call. */
const SUBCOMMANDS = ['create', 'start', 'kill', 'delete'];

/**
 * A directory whose `runc` logs each call (its arguments, and the GOMAXPROCS and NOTIFY_SOCKET
 * it was given) before it runs the real one: put first on a shim's or containerd's PATH, it
 * shows which runc subcommands ran for a container and with what environment.
 */
export class LoggingRunc {
  readonly bin = mkdtempSync(join(tmpdir(), 'skiff-logging-runc-'));
  private readonly calls = join(this.bin, 'calls');

  constructor() {
    const runc = execFileSync('sh', ['-c', 'command -v runc'], { encoding: 'utf8' }).trim();
    writeFileSync(
      join(this.bin, 'runc'),
      `#!/bin/sh\necho "$*" >> ${this.calls}\necho "GOMAXPROCS=$GOMAXPROCS NOTIFY_SOCKET=\${NOTIFY_SOCKET-unset}" >> ${this.calls}.env\nexec ${runc} "$@"\n`,
    );
    chmodSync(join(this.bin, 'runc'), 0o755);
  }

  /** The subcommands run for container `id` (one of each call's arguments), in order. */
  callsFor(id: string): Array<string | undefined> {
    return this.lines(this.calls)
      .filter((line) => line.split(' ').includes(id))
      .map((line) => line.split(' ').find((word) => SUBCOMMANDS.includes(word)));
  }

  /** Every environment the calls had, once each ("GOMAXPROCS=... NOTIFY_SOCKET=..."). */
  environments(): Set<string> {
    return new Set(this.lines(`${this.calls}.env`));
  }

  remove(): void {
    rmSync(this.bin, { recursive: true, force: true });
  }

  private lines(file: string): string[] {
    return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
  }
}

/** `runc state`'s status of container `id` under runc's `root`, as runc itself reads it. */
export function runcStatus(root: string, id: string): string {
  return (JSON.parse(execFileSync('runc', ['--root', root, 'state', id], { encoding: 'utf8' })) as { status: string })
    .status;
}

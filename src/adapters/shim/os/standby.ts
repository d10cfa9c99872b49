import { closeSync, openSync, read, readFileSync, readSync, writeSync } from 'node:fs';

/** The scripts' last path components, as /proc/<pid>/cmdline shows them (bin/). */
const STANDBY_SCRIPT = '/containerd-standby.js';
const SERVING_SCRIPT = '/containerd-daemon.js';

/**
 * A standby (docs/node-daemon.md, "The standby"): started by the unit's supervisor beside the
 * serving process, it has loaded skiff and built its container, and waits here for one byte on
 * `gate` (the supervisor's, when the serving process died). The gate closed without a byte is
 * the supervisor gone: the standby leaves, as it has nothing to hand to anyone.
 */
export async function awaitPromotion(gate: number, log: (line: string) => void): Promise<void> {
  const byte = Buffer.alloc(1);
  const got = await new Promise<number>((resolve) => read(gate, byte, 0, 1, null, (err, n) => resolve(err ? 0 : n)));
  if (got === 0) process.exit(0);
  closeSync(gate);
  if (!nameAsServing())
    log('promoted from standby, but its command line still names containerd-standby.js (/proc/self/mem not writable)');
}

/**
 * The promoted standby's command line made a serving process's: every tool that finds the
 * serving process (`skiff containerd restart`, `ps`, the supervisor after a hand-over) reads
 * bin/containerd-daemon.js there, and finds a standby by the other name. Node cannot set its
 * argv, so the bytes the kernel shows (/proc/self/stat's arg_start..arg_end, proc(5)) are
 * rewritten in place through /proc/self/mem: the script's name, one byte shorter, and the rest
 * moved up, the freed byte a NUL. Whether it was done.
 */
export function nameAsServing(): boolean {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after "(comm)": the 3rd is the first; arg_start and arg_end are the 48th and 49th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[48 - 3]);
    const end = Number(fields[49 - 3]);
    if (!Number.isSafeInteger(start) || !(end > start) || end - start > 1 << 20) return false;
    const mem = openSync('/proc/self/mem', 'r+');
    try {
      const area = Buffer.alloc(end - start);
      readSync(mem, area, 0, area.length, start);
      const at = area.indexOf(`${STANDBY_SCRIPT}\0`);
      if (at < 0) return false;
      const rest = area.subarray(at + STANDBY_SCRIPT.length);
      const renamed = Buffer.concat([Buffer.from(SERVING_SCRIPT), rest]);
      const written = Buffer.alloc(area.length - at);
      renamed.copy(written);
      writeSync(mem, written, 0, written.length, start + at);
      return true;
    } finally {
      closeSync(mem);
    }
  } catch {
    return false;
  }
}

import { findInPath } from '../../../os/find-executable';
import { runCommand } from '../../../os/run-command';
import { readRegularFile } from '../../../../shared/helpers/no-follow-file';

const SBIN_PATH = '/usr/local/sbin:/usr/sbin:/sbin';
/** runc has criu log at level 4: megabytes for a large process. A larger log costs only the message's detail. */
const MAX_CRIU_LOG = 64 * 1024 * 1024;

/** criu's own error lines ("Error (criu/vdso.c:613): vdso: Failed to fill ...") without the source prefix. */
export function criuErrors(text: string): string[] {
  return text
    .split('\n')
    .map((line) => /^(?:\([\d.\s]+\)\s*)?Error \([^)]*\):\s*(.*)$/.exec(line.trim())?.[1] ?? '')
    .filter((line) => line !== '' && !/^exited, status=/.test(line));
}

/** criu as checkpoint/restore can use it: its path, or why it cannot work here. */
export type CriuStatus =
  { readonly binary: string; readonly problem?: undefined } | { readonly binary?: undefined; readonly problem: string };

/**
 * Finds criu (Debian installs it in /usr/sbin, which a shim's PATH may lack; runc is
 * then given `--criu <path>`) and runs `criu check`, whose own errors become the reason.
 */
export async function criuStatus(env: NodeJS.ProcessEnv = process.env): Promise<CriuStatus> {
  const binary = findInPath('criu', `${env.PATH ?? ''}:${SBIN_PATH}`);
  if (binary === undefined) return { problem: 'criu is not installed (Debian/Ubuntu: apt-get install criu)' };
  const result = await runCommand(binary, ['check']);
  if (result.code === 0) return { binary };
  const errors = criuErrors(result.stderr);
  return {
    problem: `\`criu check\` fails on this machine: ${errors.length > 0 ? errors.join('; ') : result.stderr.trim()}`,
  };
}

/** `criu check`, run once per shim on first use (the kernel and criu do not change under it), for every task. */
export class CriuCheck {
  private result: Promise<CriuStatus> | undefined;

  status(): Promise<CriuStatus> {
    this.result ??= criuStatus();
    return this.result;
  }
}

/** The errors criu wrote to a dump or restore log, for the message of a failed checkpoint. */
export function criuLogErrors(path: string): string[] {
  try {
    // criu's own log in the task dir, read on the event loop: never a link, a FIFO or a device.
    return criuErrors(readRegularFile(path, { limit: MAX_CRIU_LOG }) ?? '').slice(-3);
  } catch {
    return [];
  }
}

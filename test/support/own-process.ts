import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** The built modules (`npm run build`), which a Node process of its own loads. */
export const DIST = join(__dirname, '../../dist');

/**
 * A runner of script bodies in a Node process of their own, for what jest's sandbox cannot
 * hold: a process-wide flag such as the child subreaper, a SIGCHLD listener, process.env
 * writing through to the process's environment. Each call runs `body` (an async function
 * body over the names `prelude` declares) in a new process and returns what it returned,
 * through JSON; a throw fails the call with the error on stderr.
 */
export function ownProcess(prelude: string): <T = unknown>(body: string) => T {
  return <T>(body: string): T => {
    const script = `${prelude}
      (async () => { ${body} })().then(
        (result) => process.stdout.write(JSON.stringify(result)),
        (err) => { console.error(err); process.exit(1); },
      );`;
    return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as T;
  };
}

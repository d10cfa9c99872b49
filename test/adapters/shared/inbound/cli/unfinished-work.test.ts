import { execFile } from 'node:child_process';
import { join } from 'node:path';

// An empty event loop is only seen by a process of its own: each case runs a small
// script against the built guard (dist/) and looks at its exit code and stderr.
const GUARD_JS = join(__dirname, '../../../../../dist/adapters/shared/inbound/cli/unfinished-work.js');

function run(body: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `const { runGuarded, guardUnfinished } = require(${JSON.stringify(GUARD_JS)});\n${body}`;
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['-e', script], (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

const LINE =
  'skiff: demo cmd ended with its work unfinished (nothing kept the process alive while it waited): this is a bug, please report it\n';

describe('the guard against work left pending on an empty event loop', () => {
  it('a promise nothing can settle any more: exit 1 and one line on stderr naming the command (without the guard: exit 0)', async () => {
    expect(await run(`runGuarded('demo cmd', () => new Promise(() => {}));`)).toEqual({
      code: 1,
      stdout: '',
      stderr: LINE,
    });
    expect(await run(`new Promise(() => {});`)).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('the bug it was written for: a wait on an unreferenced timer', async () => {
    const result = await run(
      `runGuarded('demo cmd', () => new Promise((r) => setTimeout(r, 200).unref()).then(() => console.log('done')));`,
    );
    expect(result).toEqual({ code: 1, stdout: '', stderr: LINE });
  });

  it('work kept alive by a referenced timer is waited for, and ends normally', async () => {
    const result = await run(
      `runGuarded('demo cmd', () => new Promise((r) => setTimeout(r, 100))).then(() => console.log('done'));`,
    );
    expect(result).toEqual({ code: 0, stdout: 'done\n', stderr: '' });
  });

  it('settled work leaves the exit code to the command, and a later empty loop is no concern of the guard', async () => {
    const rejected = await run(
      `runGuarded('demo cmd', async () => { throw new Error('x'); }).catch(() => { process.exitCode = 4; });`,
    );
    expect(rejected).toEqual({ code: 4, stdout: '', stderr: '' });
    const after = await run(`runGuarded('demo cmd', async () => 1).then(() => new Promise(() => {}));`);
    expect(after).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('a guard never switched off still lets the process end: exit 1, after its one line', async () => {
    const result = await run(
      `const g = guardUnfinished('demo cmd'); process.on('exit', (c) => process.stdout.write('exit ' + c));`,
    );
    expect(result).toEqual({ code: 1, stdout: 'exit 1', stderr: LINE });
  });
});

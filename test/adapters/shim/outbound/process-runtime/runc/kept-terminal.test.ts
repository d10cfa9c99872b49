import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  createReadStream,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KeptTerminal } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/kept-terminal';

/**
 * What the serving process hands a pod keeper for a terminal (docs/keeper-protocol.md, "Built so
 * far"): real FIFOs and files; the keeper's side is played by descriptors this test opens again
 * through /proc/self/fd before the serving process drops its own.
 */
describe('KeptTerminal', () => {
  let dir: string;
  const SUBJECT = 'task "t"';

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-kept-terminal-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const fifo = (name: string) => {
    const path = join(dir, name);
    execFileSync('mkfifo', ['-m', '0600', path]);
    return path;
  };
  /** Whether a FIFO has a reader: a non-blocking open for writing fails (ENXIO) without one. */
  const hasReader = (path: string) => {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
      return true;
    } catch {
      return false;
    }
  };

  it('hands FIFOs over as H and O, N and I, in a private console directory, and keeps nothing once launched', () => {
    const [stdin, stdout] = [fifo('in'), fifo('out')];
    const kept = new KeptTerminal({ stdin, stdout, stderr: '', terminal: true }, SUBJECT);
    expect(kept.fds.map((f) => f.role).join('')).toBe('HONI');
    expect(kept.consoleSocket.length).toBeLessThan(108);
    expect(existsSync(dirname(kept.consoleSocket))).toBe(true);
    expect(hasReader(stdout)).toBe(true);
    kept.launched();
    // The serving process dropped its own: only the keeper (nobody here) would read them now.
    expect(hasReader(stdout)).toBe(false);
    expect(hasReader(stdin)).toBe(false);
    expect(existsSync(dirname(kept.consoleSocket))).toBe(false);
  });

  it('feeds a regular file as stdin through a pipe whose read end is N; an output file is O', async () => {
    const input = join(dir, 'input.txt');
    writeFileSync(input, 'echo from a file\n'.repeat(5000));
    const output = join(dir, 'out.log');
    const kept = new KeptTerminal({ stdin: input, stdout: output, stderr: '', terminal: true }, SUBJECT);
    expect(kept.fds.map((f) => f.role).join('')).toBe('ON');
    const n = kept.fds.find((f) => f.role === 'N')?.fd as number;
    // The keeper's copy, read off the loop (the copying into the pipe runs on it) until end-of-file.
    const keeperN = openSync(`/proc/self/fd/${n}`, constants.O_RDONLY);
    const read = new Promise<string>((resolve, reject) => {
      let text = '';
      createReadStream('', { fd: keeperN })
        .on('data', (chunk) => (text += chunk.toString()))
        .on('end', () => resolve(text))
        .on('error', reject);
    });
    kept.launched();
    expect(await read).toBe(readFileSync(input, 'utf8'));
    expect(existsSync(output)).toBe(true);
  });

  it('closes what it opened when the launch fails', () => {
    const stdout = fifo('out');
    const kept = new KeptTerminal({ stdin: '', stdout, stderr: '', terminal: true }, SUBJECT);
    kept.release();
    expect(hasReader(stdout)).toBe(false);
    expect(existsSync(dirname(kept.consoleSocket))).toBe(false);
  });
});

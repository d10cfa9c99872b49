import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  INIT_DEAD,
  startThroughExecFifo,
} from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/exec-fifo';

/**
 * runc's start handshake on a real FIFO, with a shell in the init's part: it blocks opening
 * the fifo for writing until a reader comes, writes its byte, and closes the write end as
 * runc's init does at its exec (libcontainer's standard_init_linux.go).
 */
describe('startThroughExecFifo', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-exec-fifo-'));
  let n = 0;
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  function fifo(): string {
    const path = join(dir, `exec-${n++}.fifo`);
    execFileSync('mkfifo', ['-m', '0622', path]);
    return path;
  }

  /** A stand-in init running `script` with $1 the fifo; resolves its exit. */
  function init(script: string, path: string): { child: ChildProcess; exited: Promise<number | null> } {
    const child = spawn('sh', ['-c', script, 'init', path], { stdio: 'ignore' });
    children.push(child);
    return { child, exited: new Promise((resolve) => child.once('exit', resolve)) };
  }

  it('reads the byte, removes the fifo, and resolves once the write end closes (the exec)', async () => {
    const path = fifo();
    const { exited } = init('exec 3>"$1"; printf 0 >&3; sleep 0.3; exec 3>&-; sleep 5', path);
    const started = Date.now();
    await expect(startThroughExecFifo(path, exited)).resolves.toBe('started');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(existsSync(path)).toBe(false);
  });

  it('counts an init that wrote its byte and then died as started, as runc start does', async () => {
    const path = fifo();
    const { exited } = init('exec 3>"$1"; printf 0 >&3; exit 7', path);
    await expect(startThroughExecFifo(path, exited)).resolves.toBe('started');
    expect(existsSync(path)).toBe(false);
  });

  it("rejects with runc's words when the init died before it opened the fifo", async () => {
    const path = fifo();
    const { exited } = init('exit 3', path);
    await exited;
    await expect(startThroughExecFifo(path, exited)).rejects.toThrow(INIT_DEAD);
  });

  it('finds the byte of an init whose exit is known before its byte was read', async () => {
    const path = fifo();
    // The byte is in the pipe before the call: a reader held here lets the init write and exit.
    const holder = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const { exited } = init('printf 0 >"$1"', path);
    await exited;
    try {
      await expect(startThroughExecFifo(path, Promise.resolve())).resolves.toBe('started');
    } finally {
      closeSync(holder);
    }
    expect(existsSync(path)).toBe(false);
  });

  it("answers 'no fifo' where there is none: runc's own start then says why", async () => {
    await expect(startThroughExecFifo(join(dir, 'none.fifo'), new Promise(() => undefined))).resolves.toBe('no fifo');
  });

  it('does not resolve while the init has not written (it waits, as runc start blocks)', async () => {
    const path = fifo();
    const { child, exited } = init('sleep 0.4; exec 3>"$1"; printf 0 >&3; exec 3>&-; sleep 5', path);
    const started = Date.now();
    await expect(startThroughExecFifo(path, exited)).resolves.toBe('started');
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    child.kill('SIGKILL');
  });
});

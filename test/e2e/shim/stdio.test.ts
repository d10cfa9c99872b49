import { openSync, closeSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mkfifo, readFifoInAnotherProcess, readSomeInAnotherProcess } from '../support/fifo';
import { RuntimeFixture, shimVariants } from '../support/runtimes';
import { RunningShim, startShim } from '../support/shim-process';
import { waitFor } from '../../support/wait-for';

describe.each(shimVariants())('shim stdio end to end (%s over %s)', (runtimeName, transport, makeFixture) => {
  let shim: RunningShim;
  let fx: RuntimeFixture;
  let n = 0;
  const nextId = () => `io-${n++}`;

  beforeAll(async () => {
    fx = makeFixture();
    shim = await startShim(runtimeName, [], undefined, undefined, transport);
  });
  afterAll(async () => {
    await shim.stop();
    fx.cleanup();
  });

  async function finish(id: string): Promise<number> {
    const { exit_status } = await shim.client.wait(id);
    await shim.client.delete(id);
    return exit_status;
  }

  it('writes stdout and stderr into FIFOs read by another process, which sees end-of-file at exit', async () => {
    const id = nextId();
    const out = mkfifo(join(shim.dir, `${id}.out`));
    const err = mkfifo(join(shim.dir, `${id}.err`));
    const outReader = readFifoInAnotherProcess(out);
    const errReader = readFifoInAnotherProcess(err);
    await shim.client.create({
      id,
      bundle: fx.bundle(['sh', '-c', 'echo to-out; echo to-err >&2']),
      stdout: out,
      stderr: err,
    });
    await shim.client.start(id);
    expect(await outReader.done).toBe('to-out\n');
    expect(await errReader.done).toBe('to-err\n');
    expect(await finish(id)).toBe(0);
  });

  it('keeps output for a reader that attaches late, after the process exited', async () => {
    const id = nextId();
    const out = mkfifo(join(shim.dir, `${id}.out`));
    await shim.client.create({ id, bundle: fx.bundle(['sh', '-c', 'echo early-bird; echo second-line']), stdout: out });
    await shim.client.start(id);
    expect((await shim.client.wait(id)).exit_status).toBe(0);
    const reader = readFifoInAnotherProcess(out);
    expect(await reader.done).toBe('early-bird\nsecond-line\n');
    await shim.client.delete(id);
  });

  it('never kills a writer with SIGPIPE: a reader detaches, output waits, a new reader gets the rest', async () => {
    const id = nextId();
    const out = mkfifo(join(shim.dir, `${id}.out`));
    // 20 lines, a pause, 20 more: the first reader leaves after 10 bytes.
    const script = 'for i in $(seq 1 20); do echo line$i; done; sleep 0.5; for i in $(seq 21 40); do echo line$i; done';
    await shim.client.create({ id, bundle: fx.bundle(['sh', '-c', script]), stdout: out });
    await shim.client.start(id);
    const first = await readSomeInAnotherProcess(out, 10);
    expect(first).toBe('line1\nline');
    const second = await readFifoInAnotherProcess(out).done;
    expect(await finish(id)).toBe(0); // not 141 (SIGPIPE)
    const all = first + second;
    expect(all.trim().split('\n')).toEqual(Array.from({ length: 40 }, (_, i) => `line${i + 1}`));
  });

  it('blocks (never loses) output larger than the pipe while nobody reads', async () => {
    const id = nextId();
    const out = mkfifo(join(shim.dir, `${id}.out`));
    // 256 KiB: four times the default pipe buffer.
    await shim.client.create({
      id,
      bundle: fx.bundle(['sh', '-c', 'head -c 262144 /dev/zero | tr "\\000" x']),
      stdout: out,
    });
    await shim.client.start(id);
    await new Promise((r) => setTimeout(r, 300));
    expect((await shim.client.state(id)).status).toBe(2); // RUNNING: blocked on the full pipe, alive
    const data = await readFifoInAnotherProcess(out).done;
    expect(data.length).toBe(262144);
    expect(await finish(id)).toBe(0);
  });

  it('appends to regular files, created 0600, and accepts file:// URIs', async () => {
    const id = nextId();
    const file = join(shim.dir, `${id}.log`);
    writeFileSync(file, 'before\n', { mode: 0o644 });
    const fresh = join(shim.dir, `${id}.fresh`);
    await shim.client.create({
      id,
      bundle: fx.bundle(['sh', '-c', 'echo out; echo err >&2']),
      stdout: pathToFileURL(file).href,
      stderr: fresh,
    });
    await shim.client.start(id);
    expect(await finish(id)).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('before\nout\n');
    expect(readFileSync(fresh, 'utf8')).toBe('err\n');
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
  });

  it('shares one file between stdout and stderr in order', async () => {
    const id = nextId();
    const file = join(shim.dir, `${id}.both`);
    await shim.client.create({
      id,
      bundle: fx.bundle(['sh', '-c', 'echo 1; echo 2 >&2; echo 3']),
      stdout: file,
      stderr: file,
    });
    await shim.client.start(id);
    expect(await finish(id)).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('1\n2\n3\n');
  });

  it('feeds stdin from a FIFO; the process reads end-of-file after CloseIO once the writer is gone', async () => {
    const id = nextId();
    const stdin = mkfifo(join(shim.dir, `${id}.in`));
    const outFile = join(shim.dir, `${id}.out`);
    await shim.client.create({ id, bundle: fx.bundle(['sh', '-c', 'cat; echo done']), stdin, stdout: outFile });
    await shim.client.start(id);
    const writer = openSync(stdin, 'w');
    writeSync(writer, 'hello stdin\n');
    closeSync(writer);
    // The client's writer is closed, but the shim's handle keeps cat waiting until CloseIO.
    await new Promise((r) => setTimeout(r, 200));
    expect((await shim.client.state(id)).status).toBe(2);
    await shim.client.closeIO(id);
    expect(await finish(id)).toBe(0);
    expect(readFileSync(outFile, 'utf8')).toBe('hello stdin\ndone\n');
  });

  it('gives an exec its own stdio', async () => {
    const id = nextId();
    await shim.client.create({ id, bundle: fx.bundle(['sleep', '100']) });
    await shim.client.start(id);
    const out = mkfifo(join(shim.dir, `${id}.exec.out`));
    const reader = readFifoInAnotherProcess(out);
    await shim.client.exec(
      id,
      'x1',
      { args: ['sh', '-c', 'echo from-exec'], env: ['PATH=/usr/bin:/bin'], cwd: '/' },
      { stdout: out },
    );
    await shim.client.start(id, 'x1');
    expect(await reader.done).toBe('from-exec\n');
    await shim.client.wait(id, 'x1');
    await shim.client.delete(id, 'x1');
    await shim.client.kill(id, 9);
    await finish(id);
  });

  it('runs terminal=true on a pseudo-terminal whose output goes to stdout, and ResizePty resizes it', async () => {
    const id = nextId();
    const out = mkfifo(join(shim.dir, `${id}.tty`));
    const stdin = mkfifo(join(shim.dir, `${id}.tty-in`));
    const reader = readFifoInAnotherProcess(out);
    // Prints whether stdin is a terminal and its size, then again after a line on stdin.
    const script = 'test -t 0 && echo is-a-tty; stty size; read _; stty size';
    await shim.client.create({
      id,
      bundle: fx.bundle(['sh', '-c', script], { terminal: true }),
      stdout: out,
      stdin,
      terminal: true,
    });
    await shim.client.start(id);
    await waitFor('the first size', () => reader.output().includes('24 80'));
    await shim.client.resizePty(id, 132, 43);
    const writer = openSync(stdin, 'w');
    writeSync(writer, 'go\n');
    closeSync(writer);
    expect(await finish(id)).toBe(0);
    const text = (await reader.done).replace(/\r/g, '');
    expect(text).toContain('is-a-tty\n');
    expect(text).toMatch(/24 80\n[\s\S]*43 132\n/);
  });

  it('gives a terminal process its terminal as controlling terminal and copies its output to the last byte', async () => {
    const id = nextId();
    const out = mkfifo(join(shim.dir, `${id}.tty`));
    const reader = readFifoInAnotherProcess(out);
    // /dev/tty opens only for a process with a controlling terminal; the burst right
    // before the exit is still in the terminal when the process is gone.
    const script = 'echo via-dev-tty >/dev/tty && seq 1 20000 && echo last-line';
    await shim.client.create({
      id,
      bundle: fx.bundle(['sh', '-c', script], { terminal: true }),
      stdout: out,
      terminal: true,
    });
    await shim.client.start(id);
    expect(await finish(id)).toBe(0);
    const text = (await reader.done).replace(/\r/g, '');
    expect(text).toContain('via-dev-tty\n');
    expect(text).toContain('\n19999\n20000\nlast-line\n');
  });

  it('runs an exec on its own terminal', async () => {
    const id = nextId();
    await shim.client.create({ id, bundle: fx.bundle(['sleep', '100']) });
    await shim.client.start(id);
    const out = mkfifo(join(shim.dir, `${id}.exec.tty`));
    const reader = readFifoInAnotherProcess(out);
    const process = {
      args: ['sh', '-c', 'test -t 0 && test -t 1 && echo exec-on-a-tty'],
      env: ['PATH=/usr/bin:/bin'],
      cwd: '/',
      terminal: true,
    };
    await shim.client.exec(id, 'x1', process, { stdout: out, terminal: true });
    await shim.client.start(id, 'x1');
    expect((await shim.client.wait(id, 'x1')).exit_status).toBe(0);
    expect((await reader.done).replace(/\r/g, '')).toBe('exec-on-a-tty\n');
    await shim.client.delete(id, 'x1');
    await shim.client.kill(id, 9);
    await finish(id);
  });
});

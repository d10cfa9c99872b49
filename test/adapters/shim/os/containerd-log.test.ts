import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerdLog } from '../../../../src/adapters/shim/os/containerd-log';

/**
 * The group server's log moves to a served task's log FIFO when the one it writes to has no
 * reader left (containerd closes a task's FIFO when the task is gone). Real FIFOs; this
 * process plays containerd's reading side.
 */
describe('ContainerdLog', () => {
  const ADDRESS = 'unix:///run/skiff/g.sock';
  let root: string;
  let bundles: string;
  const readers: number[] = [];

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'skiff-log-'));
    bundles = join(root, 'io.containerd.runtime.v2.task/ns');
  });
  afterEach(() => {
    readers.splice(0).forEach((fd) => closeSync(fd));
    rmSync(root, { recursive: true, force: true });
  });

  /** A bundle with its log FIFO, read non-blockingly by "containerd" unless `reading` is false. */
  function bundle(id: string, address: string, reading = true): { reader?: number; fifo: string } {
    const dir = join(bundles, id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'address'), address);
    const fifo = join(dir, 'log');
    execFileSync('mkfifo', [fifo]);
    if (!reading) return { fifo };
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    readers.push(reader);
    return { reader, fifo };
  }

  function drain(fd: number): string {
    const buffer = Buffer.alloc(4096);
    try {
      return buffer.subarray(0, readSync(fd, buffer)).toString();
    } catch {
      return '';
    }
  }

  it("moves to a served task's FIFO once the first task's has no reader, skipping other servers' tasks", () => {
    const first = bundle('a-first', ADDRESS);
    bundle('b-other-server', 'unix:///run/skiff/other.sock');
    bundle('c-unread', ADDRESS, false);
    const served = bundle('d-served', ADDRESS);
    const log = new ContainerdLog(bundles, ADDRESS, openSync(first.fifo, constants.O_WRONLY | constants.O_NONBLOCK));

    log.line('one\n');
    expect(drain(first.reader as number)).toBe('one\n');

    closeSync(readers.shift() as number); // containerd is done with the first task
    log.line('two\n');
    log.line('three\n');
    expect(drain(served.reader as number)).toBe('two\nthree\n');
  });

  it("counts a pod keeper's tasks as this server's while a relay that named the keeper is open (their address is the keeper's)", () => {
    const KEEPER = 'unix:///run/skiff/k-pod.sock';
    const pod = bundle('b-pod', KEEPER);
    /** A log whose own FIFO has lost its reader, after `opened` relays of the keeper of which `closed` closed. */
    const logAfter = (id: string, opened: number, closed: number) => {
      const first = bundle(id, ADDRESS);
      const log = new ContainerdLog(bundles, ADDRESS, openSync(first.fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      const relays = Array.from({ length: opened }, () => log.servedThrough(KEEPER));
      // A relay's close is told once, however often it is said.
      for (const closeRelay of relays.slice(0, closed)) [closeRelay, closeRelay].forEach((f) => f());
      readers.splice(readers.indexOf(first.reader as number), 1);
      closeSync(first.reader as number);
      return log;
    };
    logAfter('a1', 0, 0).line('before the keeper named itself\n');
    expect(drain(pod.reader as number)).toBe('');
    logAfter('a2', 2, 1).line('one relay left\n');
    expect(drain(pod.reader as number)).toBe('one relay left\n');
    // Its last relay closed (the keeper died, or its pod is gone): the keeper is forgotten.
    logAfter('a3', 2, 2).line('no relay left\n');
    expect(drain(pod.reader as number)).toBe('');
  });

  it('drops a line without throwing when no served task is left to log through', () => {
    const first = bundle('a-first', ADDRESS);
    const log = new ContainerdLog(bundles, ADDRESS, openSync(first.fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    closeSync(readers.shift() as number);
    expect(() => log.line('nobody reads this\n')).not.toThrow();
    const late = bundle('z-late', ADDRESS);
    log.line('found\n');
    expect(drain(late.reader as number)).toBe('found\n');
  });
});

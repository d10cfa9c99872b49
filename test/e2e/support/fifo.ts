import { execFileSync, spawn } from 'node:child_process';

/** Creates a FIFO with mkfifo(1), as a containerd client would. */
export function mkfifo(path: string): string {
  execFileSync('mkfifo', ['-m', '0600', path]);
  return path;
}

/** Reads a FIFO to end-of-file in another process (cat), resolving with what it read. */
export function readFifoInAnotherProcess(path: string): { done: Promise<string>; pid: number; output: () => string } {
  const cat = spawn('cat', [path], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  cat.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return {
    done: new Promise((resolve) => cat.once('close', () => resolve(out))),
    pid: cat.pid as number,
    output: () => out,
  };
}

/** Reads at most `bytes` bytes from a FIFO in another process, then that reader exits. */
export function readSomeInAnotherProcess(path: string, bytes: number): Promise<string> {
  return new Promise((resolve) => {
    const head = spawn('head', ['-c', String(bytes), path], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    head.stdout.on('data', (d: Buffer) => (out += d.toString()));
    head.once('close', () => resolve(out));
  });
}

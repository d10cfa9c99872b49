import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { socketAccepts } from '../../../src/adapters/shim/os/socket-accepts';
import { waitFor } from '../../support/wait-for';
import { TaskTestClient, Transport } from './task-client';

export { socketAccepts };

export const SKIFF_BIN = join(__dirname, '../../../bin/run.js');
/** `skiff shim serve` started as bin/run.js starts it, serving ttrpc in place of gRPC (the benchmark's too). */
export const SERVE_TTRPC = join(__dirname, '../../../scripts/serve-ttrpc.js');

export interface RunningShim {
  readonly dir: string;
  readonly socket: string;
  readonly stateDir: string;
  readonly child: ChildProcess;
  readonly client: TaskTestClient;
  readonly stderr: () => string;
  /** Resolves with the shim's exit code once it has exited. */
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Starts `skiff shim serve` (or its ttrpc twin) as a real process and waits until its socket accepts. */
export async function startShim(
  runtime = 'native',
  extraArgs: string[] = [],
  reuseDir?: string,
  env?: NodeJS.ProcessEnv,
  transport: Transport = 'grpc',
): Promise<RunningShim> {
  const dir = reuseDir ?? mkdtempSync(join(tmpdir(), 'skiff-e2e-'));
  const socket = join(dir, 'run', 'shim.sock');
  const stateDir = join(dir, 'state');
  const entry = transport === 'grpc' ? [SKIFF_BIN, 'shim', 'serve'] : [SERVE_TTRPC];
  const child = spawn(
    process.execPath,
    [...entry, '--address', socket, '--runtime', runtime, '--state-dir', stateDir, ...extraArgs],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env },
    },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  await waitFor('the shim socket', async () => gone || (existsSync(socket) && (await socketAccepts(socket))));
  if (gone) throw new Error(`shim exited before serving: ${stderr}`);
  const client = new TaskTestClient(socket, transport);
  return {
    dir,
    socket,
    stateDir,
    child,
    client,
    exited,
    stderr: () => stderr,
    async stop() {
      client.close();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

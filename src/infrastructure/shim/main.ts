import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskService } from '../../application/shim/task/task-service';
import { GrpcTaskServer } from '../../adapters/shim/inbound/grpc/grpc-server';
import { isDomainError } from '../../domain/shared/errors';
import { exitCodeFor, EXIT } from '../../adapters/shared/inbound/cli/exit-codes';
import { ADDRESS_VARIABLE, defaultAddress, defaultStateDir, isRuntimeName, ShimConfig } from './shim-config';
import { buildContainer } from '../shared/container';
import { serveShim } from './serve-shim';
import { ShimProcessHost } from '../../adapters/shim/outbound/shim-host/shim-process-host';

/**
 * The fast start of `skiff shim serve` (bundled as dist/shim.bundle.js and called
 * by bin/run.js without loading oclif). It understands exactly the flags of
 * `skiff shim serve`: --address, --runtime, --state-dir, and the hidden --run-dir and
 * --lifeline that `skiff run` gives its shims; anything else returns undefined and the
 * command goes through oclif, which owns help and usage errors.
 */
export function parseServeArgs(argv: readonly string[]): ShimConfig | undefined {
  const values: Record<string, string> = {};
  let lifeline = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--lifeline') {
      lifeline = true;
      continue;
    }
    const match = /^--(address|runtime|state-dir|run-dir)(?:=(.*))?$/.exec(argv[i]);
    if (match === null) return undefined;
    const value = match[2] ?? argv[++i];
    if (value === undefined) return undefined;
    values[match[1]] = value;
  }
  const runtime = values.runtime ?? 'native';
  if (!isRuntimeName(runtime)) return undefined;
  const address = values.address ?? (process.env[ADDRESS_VARIABLE] || defaultAddress());
  return { address, runtime, stateDir: values['state-dir'] ?? defaultStateDir(), runDir: values['run-dir'], lifeline };
}

/** Serves, or prints one line and exits with its kind's exit code when the shim cannot start. */
export function runServe(config: ShimConfig): void {
  serveShim(config).catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`skiff shim serve: ${message}\n`);
    process.exit(isDomainError(err) ? exitCodeFor(err.kind) : EXIT.unexpected);
  });
}

/**
 * Build step (scripts/bundle.js): wire the shim and listen on a scratch socket once,
 * so the V8 code cache written afterwards holds the start path's functions compiled.
 */
export async function warmUp(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-warm-'));
  try {
    const host = new ShimProcessHost('warm-up');
    const service = buildContainer({ shim: { runtime: 'native', stateDir: join(dir, 'state'), host } }).get(
      TaskService,
    );
    const server = await GrpcTaskServer.listen(join(dir, 'shim.sock'), service);
    await server.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

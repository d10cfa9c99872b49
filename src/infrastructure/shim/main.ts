import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http2';
import { connect as connectSocket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskClient } from '../../application/shim/ports/task-client.port';
import { frameMessage } from '../../adapters/shim/wire/grpc/grpc-framing';
import { SocketListener } from '../../adapters/shim/os/socket-listener';
import { BoundSocket } from '../../adapters/shim/os/unix-socket';
import { RpcTaskClient, UnaryTransport } from '../../adapters/shim/outbound/task-client/rpc-task-client';
import { TtrpcTaskClient } from '../../adapters/shim/outbound/task-client/ttrpc-task-client';
import { failServe } from './listen-first';
import { ShimConfig } from './shim-config';
import { DEFAULT_RUNTIME } from './runtimes';
import { serveShim, ShimTransport } from './serve-shim';

export { parseServeArgs } from './listen-first';

/**
 * The serving part of `skiff shim serve` (bundled as dist/shim.bundle.js and called by
 * bin/run.js, without oclif, once listen-first.ts has bound the socket). Serves, or
 * prints one line and exits with the contract's code when the shim cannot start.
 */
export function runServe(config: ShimConfig, bound: BoundSocket, transport: ShimTransport = 'grpc'): void {
  let listener: SocketListener | undefined;
  SocketListener.adopt(bound)
    .then((adopted) => {
      listener = adopted;
      return serveShim(config, transport, adopted);
    })
    .catch((err: unknown) => failServe(err, listener ?? bound));
}

/**
 * Unary calls on plain node:http2, for the warm-up only: grpc-js's client would put its
 * own functions, which the shim never runs, into the code cache (a third more to load).
 */
function http2Transport(path: string): UnaryTransport {
  const { connect } = require('node:http2') as typeof import('node:http2');
  const session = connect('http://localhost', { createConnection: () => connectSocket(path) });
  return {
    call: (method, request) =>
      new Promise((resolve, reject) => {
        const headers = { ':method': 'POST', ':path': `/task.v2.Task/${method}`, 'content-type': 'application/grpc' };
        const stream = session.request(headers);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', reject);
        const check = (fields: IncomingHttpHeaders) => {
          const status = fields['grpc-status'];
          if (status !== undefined && status !== '0')
            reject(new Error(`warm-up ${method}: ${String(fields['grpc-message'])}`));
        };
        stream.on('response', check);
        stream.on('trailers', check);
        stream.on('end', () => resolve(Buffer.concat(chunks).subarray(5)));
        stream.end(frameMessage(request));
      }),
    close: () => session.close(),
  };
}

const NO_STDIO = { stdin: '', stdout: '', stderr: '', terminal: false };

async function oneLifecycle(client: TaskClient, bundle: string): Promise<void> {
  const id = 'warm-up';
  await client.create({ id, bundle, rootfs: [], checkpoint: '', parentCheckpoint: '', ...NO_STDIO });
  const exited = client.wait({ id, execId: '' });
  await client.start({ id, execId: '' });
  await exited;
  await client.delete({ id, execId: '' });
  client.close();
}

/**
 * Build step (scripts/bundle.js): start a shim on a scratch socket and run one task of
 * /bin/true through it over each transport, so that the V8 code cache written afterwards
 * holds the request path compiled, not only the start path: a fresh shim's first
 * requests then skip parsing and compiling it (docs/performance.md).
 */
export async function warmUp(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-warm-'));
  try {
    const bundle = join(dir, 'bundle');
    mkdirSync(bundle);
    const process = { args: ['/bin/true'], env: ['PATH=/usr/bin:/bin'], cwd: '/' };
    writeFileSync(join(bundle, 'config.json'), JSON.stringify({ ociVersion: '1.0.2', process }));
    for (const transport of ['grpc', 'ttrpc'] as const) {
      const address = join(dir, `${transport}.sock`);
      const config = { address, runtime: DEFAULT_RUNTIME, stateDir: join(dir, 'state') };
      const server = await serveShim(config, transport, await SocketListener.listen({ address }));
      const client =
        transport === 'grpc' ? new RpcTaskClient(http2Transport(address), address) : new TtrpcTaskClient(address);
      await oneLifecycle(client, bundle);
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

'use strict';
// The warm-up of dist/shim.bundle.js (scripts/code-cache.js): a shim served by the bundle's
// own code on a scratch socket runs one task of /bin/true over each transport, so that the
// code cache written afterwards holds the request path compiled, not only the start path: a
// fresh shim's first requests then skip parsing and compiling it (docs/performance.md). The
// client is skiff's own from dist/, outside the bundle, so its functions, which the shim never
// runs, stay out of the cache; gRPC goes over plain node:http2 (grpc-js's client is not needed).
const fs = require('node:fs');
const http2 = require('node:http2');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const CLIENTS = path.join(__dirname, '..', '..', 'dist', 'adapters', 'shim', 'outbound', 'task-client');
const { RpcTaskClient } = require(path.join(CLIENTS, 'rpc-task-client'));
const { TtrpcTaskClient } = require(path.join(CLIENTS, 'ttrpc-task-client'));

/** Unary gRPC calls on node:http2: the 5-byte length prefix, the status in the trailers. */
function http2Transport(address) {
  const session = http2.connect('http://localhost', { createConnection: () => net.connect(address) });
  return {
    call: (method, request) =>
      new Promise((resolve, reject) => {
        const headers = { ':method': 'POST', ':path': `/task.v2.Task/${method}`, 'content-type': 'application/grpc' };
        const stream = session.request(headers);
        const chunks = [];
        stream.on('data', (chunk) => chunks.push(chunk));
        stream.on('error', reject);
        const check = (fields) => {
          const status = fields['grpc-status'];
          if (status !== undefined && status !== '0') reject(new Error(`warm-up ${method}: ${fields['grpc-message']}`));
        };
        stream.on('response', check);
        stream.on('trailers', check);
        stream.on('end', () => resolve(Buffer.concat(chunks).subarray(5)));
        const frame = Buffer.alloc(5 + request.length);
        frame.writeUInt32BE(request.length, 1);
        frame.set(request, 5);
        stream.end(frame);
      }),
    close: () => session.close(),
  };
}

async function oneLifecycle(client, bundle) {
  const id = 'warm-up';
  const stdio = { stdin: '', stdout: '', stderr: '', terminal: false };
  await client.create({ id, bundle, rootfs: [], checkpoint: '', parentCheckpoint: '', ...stdio });
  const exited = client.wait({ id, execId: '' });
  await client.start({ id, execId: '' });
  await exited;
  await client.delete({ id, execId: '' });
  client.close();
}

module.exports = async (shim) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-warm-'));
  try {
    const bundle = path.join(dir, 'bundle');
    fs.mkdirSync(bundle);
    const process = { args: ['/bin/true'], env: ['PATH=/usr/bin:/bin'], cwd: '/' };
    fs.writeFileSync(path.join(bundle, 'config.json'), JSON.stringify({ ociVersion: '1.0.2', process }));
    for (const transport of ['grpc', 'ttrpc']) {
      const address = path.join(dir, `${transport}.sock`);
      const config = { address, runtime: 'native', stateDir: path.join(dir, 'state') };
      const server = await shim.serveShim(config, transport, await shim.SocketListener.listen({ address }));
      const client =
        transport === 'grpc' ? new RpcTaskClient(http2Transport(address), address) : new TtrpcTaskClient(address);
      await oneLifecycle(client, bundle);
      await server.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
};

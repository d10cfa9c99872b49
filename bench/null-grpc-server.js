'use strict';
// A gRPC server that does no work: every call gets an empty reply and status OK at once
// (node:http2, the least a unary gRPC answer takes). bench/shim.bench.js times a fresh
// grpc-js client against it: the client's own share of a lifecycle, which no shim can
// go below. Started with an IPC channel; sends 'listening' once its socket accepts.
const fs = require('node:fs');
const http2 = require('node:http2');

const socket = process.argv[2];
fs.rmSync(socket, { force: true });
const EMPTY_MESSAGE = Buffer.alloc(5); // not compressed, length 0
const server = http2.createServer();
server.on('stream', (stream) => {
  stream.resume();
  stream.once('end', () => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(EMPTY_MESSAGE);
  });
});
server.listen(socket, () => process.send('listening'));

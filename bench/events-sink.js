'use strict';
// containerd's events service as far as a shim sees it (Events.Forward over ttrpc on
// $TTRPC_ADDRESS), for benchmarks that run shims without a containerd: every shim then
// forwards its events as it does in production, instead of retrying against nothing.
// In a process of its own, so the timing client's event loop never serves it.
//   node bench/events-sink.js <socket>    (sends 'ready' over IPC once it listens)
const { TtrpcServer } = require('../dist/adapters/shim/inbound/ttrpc/ttrpc-server');
const { TTRPC_EVENTS_SERVICE } = require('../dist/adapters/shim/wire/ttrpc/service-names');

const forward = async () => Buffer.alloc(0);
TtrpcServer.listen({ address: process.argv[2] }, new Map([[TTRPC_EVENTS_SERVICE, new Map([['Forward', forward]])]]))
  .then(() => process.send('ready'))
  .catch((err) => {
    console.error(`events sink: ${err.message}`);
    process.exit(1);
  });
process.on('disconnect', () => process.exit(0));

'use strict';
// A client of containerd's CRI plugin (kubernetes' CRI runtime.v1 API over gRPC on
// containerd's socket), as kubelet speaks it: the tests, the benchmark and the smoke check
// share it. The API is the vendored test/vendor/cri-api/api.proto.
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');

const PROTO = path.join(__dirname, '../../test/vendor/cri-api/api.proto');
const DEFAULT_DEADLINE_MS = 30_000;

let api;
/** The runtime.v1 package, loaded once. int64s stay strings: nanosecond times exceed 2^53. */
function runtimeV1() {
  api ??= grpc.loadPackageDefinition(
    loader.loadSync(PROTO, { keepCase: false, longs: String, enums: String, defaults: true }),
  ).runtime.v1;
  return api;
}

/** An error from a CRI call: `<Method>: <containerd's message>`, with the gRPC code. */
class CriError extends Error {
  constructor(method, error) {
    super(`${method}: ${error.details || error.message}`);
    this.name = 'CriError';
    this.code = error.code;
  }
}

function invoke(client, method, request, deadlineMs) {
  return new Promise((resolve, reject) => {
    client[method](request, { deadline: Date.now() + deadlineMs }, (error, reply) =>
      error ? reject(new CriError(method, error)) : resolve(reply),
    );
  });
}

/**
 * A CRI client on the unix socket `address`: runtime(method, request) and image(method,
 * request) resolve the reply or reject with a CriError; each call has a deadline
 * (options.deadlineMs, 30 s by default, or the call's own third argument).
 */
function criClient(address, options = {}) {
  const v1 = runtimeV1();
  const target = `unix:${address}`;
  const runtime = new v1.RuntimeService(target, grpc.credentials.createInsecure());
  const images = new v1.ImageService(target, grpc.credentials.createInsecure());
  const deadline = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  return {
    runtime: (method, request = {}, deadlineMs = deadline) => invoke(runtime, method, request, deadlineMs),
    image: (method, request = {}, deadlineMs = deadline) => invoke(images, method, request, deadlineMs),
    close() {
      runtime.close();
      images.close();
    },
  };
}

/**
 * Resolves once the CRI plugin answers Status with RuntimeReady: after a (re)start containerd
 * answers ctr before the plugin has loaded its state ("server is not initialized yet").
 */
async function criReady(cri, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await cri.runtime('Status').catch(() => undefined);
    if (reply?.status.conditions.some((c) => c.type === 'RuntimeReady' && c.status)) return;
    if (Date.now() > deadline) throw new Error(`the CRI plugin was not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

module.exports = { criClient, criReady, CriError, PROTO };

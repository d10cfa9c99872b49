'use strict';
// One fresh shim as a user meets it, timed side by side with Node's spawn-and-wait of the
// same program: `skiff shim serve` to the first Create answered, the first lifecycle, then
// the first TIMED lifecycles after UNTIMED untimed, in alternating blocks.
// Run as a script (`node fresh-shim.js <grpc|ttrpc> <dir> <bundle> [skiff|grpc-js]`) it
// measures with a client as fresh as the shim, in a process of its own (over gRPC, skiff's
// own client or grpc-js's), and prints the figures as JSON;
// `node fresh-shim.js floor <socket> [skiff|grpc-js]` times such a client against a server that does no work.
const path = require('node:path');
const { pb, nowMs, startShim, stopShim, connectClient, lifecycle, spawnBaseline } = require('./shim-client');

const UNTIMED = 10;
const TIMED = 150;
/** Lifecycles and baseline spawns alternate in blocks of this many, so machine noise hits both alike. */
const BLOCK = 10;

/** `count` lifecycles alternating with as many spawn-and-waits of /bin/true (`baseline`), in blocks. */
async function sideBySide(client, bundle, count, next, baseline) {
  const viaShim = [];
  const bare = [];
  for (let done = 0; done < count; done += BLOCK) {
    for (let i = 0; i < BLOCK; i++) {
      const t = nowMs();
      await lifecycle(client, next(), bundle);
      viaShim.push(nowMs() - t);
    }
    bare.push(...(await baseline.times(BLOCK)));
  }
  return { viaShim, bare };
}

/**
 * Starts a shim in `dir` and times it fresh. With `warmTo`, the same shim then goes on to
 * that many lifecycles and is timed again (`warmed`).
 */
async function freshShim(transport, dir, bundle, baseline, warmTo, clientKind) {
  const shim = await startShim(transport, dir);
  const client = connectClient(transport, shim.socket, clientKind);
  const t = nowMs();
  await client.call('Create', new pb.CreateTaskRequest({ id: 'first', bundle }));
  const firstCreate = nowMs() - shim.started;
  const answered = nowMs();
  const exited = client.call('Wait', new pb.WaitRequest({ id: 'first' }));
  await client.call('Start', new pb.StartRequest({ id: 'first' }));
  await exited;
  await client.call('Delete', new pb.DeleteRequest({ id: 'first' }));
  const firstLifecycle = nowMs() - t;
  const afterCreate = nowMs() - answered;
  let n = 0;
  const next = () => `l${n++}`;
  for (let i = 1; i < UNTIMED; i++) await lifecycle(client, next(), bundle);
  const { viaShim, bare } = await sideBySide(client, bundle, TIMED, next, baseline);
  let warmed;
  if (warmTo !== undefined) {
    while (n < warmTo) await lifecycle(client, next(), bundle);
    warmed = await sideBySide(client, bundle, TIMED, next, baseline);
  }
  await stopShim(shim, client);
  return { firstCreate, firstLifecycle, afterCreate, viaShim, bare, warmed };
}

/**
 * The client's floor: `count` lifecycles against a server that does no work
 * (bench/null-grpc-server.js), alternating with the spawn-and-wait baseline as above.
 */
async function clientFloor(socket, baseline, clientKind) {
  const client = connectClient('grpc', socket, clientKind);
  let n = 0;
  const next = () => `f${n++}`;
  for (let i = 0; i < UNTIMED; i++) await lifecycle(client, next(), '/none');
  const figures = await sideBySide(client, '/none', TIMED, next, baseline);
  client.close();
  return figures;
}

/** Runs `measure(baseline)` beside a spawn-and-wait baseline of its own; prints its figures as JSON. */
function printFigures(measure) {
  const baseline = spawnBaseline();
  baseline
    .times(UNTIMED)
    .then(() => measure(baseline))
    .then((figures) => {
      baseline.stop();
      process.stdout.write(JSON.stringify(figures));
    })
    .catch((err) => {
      baseline.stop();
      process.stderr.write(`fresh-shim: ${err.stack ?? err}\n`);
      process.exit(1);
    });
}

if (require.main === module) {
  const [mode, ...args] = process.argv.slice(2);
  printFigures((baseline) =>
    mode === 'floor'
      ? clientFloor(args[0], baseline, args[1])
      : freshShim(mode, path.resolve(args[0]), args[1], baseline, undefined, args[2]),
  );
}

module.exports = { freshShim, UNTIMED, TIMED };

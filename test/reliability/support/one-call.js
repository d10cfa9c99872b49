'use strict';
// A separate client process for fault tests: makes one task.v2 call, prints "sent"
// once the request is on its way, and waits (the test kills it mid-call).
// usage: node one-call.js <socket> <Method> '<request JSON>'
const path = require('node:path');
const root = path.join(__dirname, '../../..');
const grpc = require(path.join(root, 'node_modules/@grpc/grpc-js'));
const { task } = require(path.join(root, 'dist/adapters/shim/wire/proto/generated/task/v2/shim'));

const [socket, method, json] = process.argv.slice(2);
const Request = { Wait: task.v2.WaitRequest, Create: task.v2.CreateTaskRequest, State: task.v2.StateRequest }[method];
const TaskClient = grpc.makeGenericClientConstructor(task.v2.UnimplementedTaskService.definition, 'Task');
const client = new TaskClient(`unix:${socket}`, grpc.credentials.createInsecure());
client[method](new Request(JSON.parse(json)), () => process.exit(0));
setImmediate(() => process.stdout.write('sent\n'));
setInterval(() => undefined, 1000);

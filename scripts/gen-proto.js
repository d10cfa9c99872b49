'use strict';
// Build step: generate TypeScript from proto/ (buf + protoc-gen-ts, both shipped
// inside their npm packages: nothing is fetched outside the npm registry), then
// mark the output as generated. @ts-nocheck silences the project's strict flags
// inside generated code only; its exported types still check at every use.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const out = path.join(root, 'src/adapters/shim/wire/proto/generated');
const buf = path.join(root, 'node_modules/.bin/buf');

execFileSync(buf, ['generate'], { cwd: path.join(root, 'proto'), stdio: 'inherit' });

const HEADER = '// Generated from proto/ by scripts/gen-proto.js. DO NOT EDIT.\n// @ts-nocheck\n';

// The generated grpc-js client classes (`<Service>Client extends makeGenericClientConstructor`)
// are dropped: evaluating one loads all of grpc-js (~0.6 MB, with protobufjs another
// 0.3 MB) into every bundle that reads the messages, the shim's start-up path included,
// and skiff has its own gRPC server. grpc-js is then named by types only, so tsc drops
// the import. A caller that wants the class makes it with grpc-js's
// makeGenericClientConstructor(<Service>.definition, '<Service>').
const CLIENT_CLASS = /^ {4}export class \w+Client extends grpc_1\.makeGenericClientConstructor\([\s\S]*?^ {4}\}\n/gm;
const GRPC_IMPORT = 'import * as grpc_1 from "@grpc/grpc-js";';

for (const file of fs.readdirSync(out, { recursive: true })) {
  const full = path.join(out, String(file));
  if (!full.endsWith('.ts')) continue;
  const text = fs.readFileSync(full, 'utf8');
  const body = text
    .replace(HEADER, '')
    .replace(CLIENT_CLASS, '')
    .replace(GRPC_IMPORT, 'import type * as grpc_1 from "@grpc/grpc-js";');
  if (HEADER + body !== text) fs.writeFileSync(full, HEADER + body);
}

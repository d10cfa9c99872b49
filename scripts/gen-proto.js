'use strict';
// Build step: generate TypeScript from proto/ (buf + protoc-gen-ts, both shipped
// inside their npm packages: nothing is fetched outside the npm registry), then
// mark the output as generated. @ts-nocheck silences the project's strict flags
// inside generated code only; its exported types still check at every use.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const out = path.join(root, 'src/adapters/shim/helpers/proto/generated');
const buf = path.join(root, 'node_modules/.bin/buf');

execFileSync(buf, ['generate'], { cwd: path.join(root, 'proto'), stdio: 'inherit' });

const HEADER = '// Generated from proto/ by scripts/gen-proto.js. DO NOT EDIT.\n// @ts-nocheck\n';
for (const file of fs.readdirSync(out, { recursive: true })) {
  const full = path.join(out, String(file));
  if (!full.endsWith('.ts')) continue;
  const text = fs.readFileSync(full, 'utf8');
  if (!text.startsWith(HEADER)) fs.writeFileSync(full, HEADER + text);
}

'use strict';
// One call of the built OsKeyringSecretStore in a process of its own (see keyring-session.ts,
// OsKeyringInChild): argv op and account, the secret of a `set` on stdin; prints one JSON line,
// {"value"} or {"error": {"code", "message"}}. The keyring library keeps its D-Bus connection
// for the life of a process, so each call gets a fresh one, as each skiff command does.
const { join } = require('node:path');
const { readFileSync } = require('node:fs');
const { OsKeyringSecretStore } = require(
  join(__dirname, '../../dist/adapters/login/outbound/secret-store/os-keyring-secret-store.js'),
);

const [op, account] = process.argv.slice(2);
const store = new OsKeyringSecretStore();
const call = {
  set: () => store.set(account, readFileSync(0, 'utf8')),
  get: () => store.get(account),
  delete: () => store.delete(account),
}[op];
call().then(
  (value) => process.stdout.write(`${JSON.stringify({ value: value ?? null })}\n`),
  (err) => process.stdout.write(`${JSON.stringify({ error: { code: err.code, message: err.message } })}\n`),
);

'use strict';
// `skiff auth token` with a valid cache (no network) and `skiff auth status`: whole
// process wall time, median, against `node -e 0` measured in the same run and
// interleaved with it (so machine noise hits all three alike). Target: at most 2.5x.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { median, report } = require('./stats');

const ROUNDS = 40;
const RUN = path.join(__dirname, '..', 'bin', 'run.js');

function wallMs(args, env) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

exports.run = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-bench-auth-'));
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_CONFIG_HOME: path.join(dir, 'config'),
  };
  try {
    wallMs([RUN, 'config', 'set', '--host', 'bench.example.com'], env);
    const authDir = path.join(dir, 'data', 'skiff', 'auth');
    fs.mkdirSync(authDir, { recursive: true, mode: 0o700 });
    const record = {
      access_token: 'bench-access',
      refresh_token: 'bench-refresh',
      expires_at: '2099-01-01T00:00:00Z',
      domain: 'bench.example.com',
    };
    fs.writeFileSync(path.join(authDir, 'bench.example.com.json'), JSON.stringify(record, null, 2), { mode: 0o600 });

    const cases = { baseline: ['-e', '0'], token: [RUN, 'auth', 'token'], status: [RUN, 'auth', 'status'] };
    const times = { baseline: [], token: [], status: [] };
    for (const args of Object.values(cases)) for (let i = 0; i < 3; i++) wallMs(args, env); // warm the file cache
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, args] of Object.entries(cases)) times[name].push(wallMs(args, env));
    }
    const base = median(times.baseline);
    const line = (name) =>
      `${median(times[name]).toFixed(1)} ms vs node -e 0 ${base.toFixed(1)} ms, median of ${ROUNDS}`;
    report('auth token (valid cache, no network)', median(times.token) / base, line('token'), '<=', 2.5);
    report('auth status', median(times.status) / base, line('status'), '<=', 2.5);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
};

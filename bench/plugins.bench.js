'use strict';
// What a plugin costs the commands that are not its own: `skiff --help` (oclif's whole
// start: config, every plugin's commands) and `skiff config current-context` (a
// small command) with no plugin, with examples/plugin-hello linked by `skiff plugins link`
// (which writes its oclif.manifest.json), and with the same plugin linked but its
// manifest removed (oclif then loads every command file of the plugin on each start).
// Whole process wall time: the first run of each case (a user's first command after
// linking) and the median of the runs after it, the cases interleaved in one run so that
// machine noise hits all alike. Target: a linked plugin adds at most 20 ms. `auth token`
// with a plugin linked (it loads no plugin at all) is in auth.bench.js.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { median } = require('./stats');

const ROUNDS = 20;
const TARGET_MS = 20;
const ROOT = path.join(__dirname, '..');
const RUN = path.join(ROOT, 'bin', 'run.js');
const EXAMPLE = path.join(ROOT, 'examples', 'plugin-hello');

function wallMs(args, env) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [RUN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`skiff ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

function home(dir) {
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_CONFIG_HOME: path.join(dir, 'config'),
  };
  wallMs(['config', 'set', '--host', 'bench.example.com'], env);
  return env;
}

/** A copy of the example (its package.json and compiled commands) in `dir`. */
function copyOfExample(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(EXAMPLE, 'package.json'), path.join(dir, 'package.json'));
  fs.cpSync(path.join(EXAMPLE, 'dist'), path.join(dir, 'dist'), { recursive: true });
  return dir;
}

exports.run = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skiff-bench-plugins-'));
  try {
    const plain = home(path.join(dir, 'plain'));
    const linked = home(path.join(dir, 'linked'));
    wallMs(['plugins', 'link', copyOfExample(path.join(dir, 'with-manifest')), '--no-install'], linked);
    const unlisted = home(path.join(dir, 'no-manifest'));
    const bare = copyOfExample(path.join(dir, 'without-manifest'));
    wallMs(['plugins', 'link', bare, '--no-install'], unlisted);
    fs.rmSync(path.join(bare, 'oclif.manifest.json'));

    const commands = { help: ['--help'], context: ['config', 'current-context'] };
    const homes = { plain, linked, unlisted };
    const times = {};
    for (const command of Object.keys(commands)) for (const h of Object.keys(homes)) times[`${command}/${h}`] = [];
    // The first run of each case is the one a user meets right after linking (the file
    // cache cold for the plugin's files): printed beside the warm median, never dropped.
    const first = {};
    for (const key of Object.keys(times)) first[key] = wallMs(commands[key.split('/')[0]], homes[key.split('/')[1]]);
    for (const key of Object.keys(times)) wallMs(commands[key.split('/')[0]], homes[key.split('/')[1]]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const key of Object.keys(times))
        times[key].push(wallMs(commands[key.split('/')[0]], homes[key.split('/')[1]]));
    }
    for (const [command, args] of Object.entries(commands)) {
      const base = median(times[`${command}/plain`]);
      const withPlugin = median(times[`${command}/linked`]);
      const withoutManifest = median(times[`${command}/unlisted`]);
      const added = withPlugin - base;
      const firstAdded = first[`${command}/linked`] - first[`${command}/plain`];
      const signed = (ms) => `${ms >= 0 ? '+' : ''}${ms.toFixed(1)} ms`;
      console.log(
        `skiff ${args.join(' ')}, a plugin linked: ${signed(added)} (${withPlugin.toFixed(1)} vs ` +
          `${base.toFixed(1)} ms without, median of ${ROUNDS}; first run after linking: ${signed(firstAdded)} ` +
          `(${first[`${command}/linked`].toFixed(1)} vs ${first[`${command}/plain`].toFixed(1)} ms); its manifest removed: ` +
          `${withoutManifest.toFixed(1)} ms)  target <= +${TARGET_MS} ms  ${added <= TARGET_MS ? 'PASS' : 'MISS'}`,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
};

'use strict';
// `npm run check`'s static analysis of the C (native/ and the C unit tests in test/native/):
// cppcheck, Debian's package of it, on the configurations skiff builds (Linux, x64 and arm64).
// Without cppcheck a developer's run says so in one line and goes on; in CI (CI=true) that
// is a failure, so the analysis can never silently stop running there. native/README.md says more.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
/** What is analysed: these directories, or the ones given as arguments (test/native/static-analysis.test.ts). */
const DIRS = process.argv.length > 2 ? process.argv.slice(2) : ['native', 'test/native'];
const ARCHES = ['__x86_64__', '__aarch64__'];

function cSources(dir) {
  const abs = path.resolve(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  return fs
    .readdirSync(abs, { recursive: true })
    .filter((f) => f.endsWith('.c'))
    .map((f) => path.join(abs, f))
    .sort();
}

/** Node-API's headers: beside this Node (a distribution's or nvm's), else node-gyp's download. */
function nodeIncludeDir() {
  const candidates = [
    path.resolve(process.execPath, '../../include/node'),
    path.join(process.env.HOME ?? '', '.cache/node-gyp', process.versions.node, 'include/node'),
  ];
  return candidates.find((dir) => fs.existsSync(path.join(dir, 'node_api.h')));
}

function inCi() {
  const ci = process.env.CI ?? '';
  return ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

function main() {
  if (spawnSync('cppcheck', ['--version'], { stdio: 'ignore' }).status !== 0) {
    const line = 'cppcheck is not installed, so the C in native/ was not analysed: apt-get install cppcheck';
    if (inCi()) {
      process.stderr.write(`check-native: ${line} (CI=true makes this an error)\n`);
      process.exit(1);
    }
    process.stderr.write(`check-native: ${line}\n`);
    return;
  }
  // Every room, so a test in test/native/units finds its unit's header as the build does.
  const rooms = fs.readdirSync(path.join(ROOT, 'native'), { withFileTypes: true }).filter((e) => e.isDirectory());
  const includes = [...rooms.map((e) => `native/${e.name}`), nodeIncludeDir()]
    .filter(Boolean)
    .flatMap((dir) => ['-I', dir]);
  const files = DIRS.flatMap(cSources);
  let failed = false;
  for (const arch of ARCHES) {
    const result = spawnSync(
      'cppcheck',
      [
        '--enable=warning,style,performance,portability',
        '--std=c11',
        '--library=posix',
        '--inline-suppr',
        '--error-exitcode=1',
        '--quiet',
        '--suppress=missingIncludeSystem',
        // One configuration, the one built: __linux__ and the architecture (gate-sys.h's system calls).
        '-D__linux__',
        '-D__GNUC__',
        `-D${arch}`,
        ...includes,
        ...files,
      ],
      { cwd: ROOT, stdio: 'inherit' },
    );
    if (result.status !== 0) failed = true;
  }
  if (failed) {
    process.stderr.write('check-native: cppcheck found the problems above in the C (native/README.md, "Checks")\n');
    process.exit(1);
  }
}

main();

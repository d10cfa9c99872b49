'use strict';
// Build step: bundle the fast paths into dist/<name>.bundle.js and write their V8
// code caches. One file with a code cache starts ~40% faster than the same code
// loaded module by module (docs/performance.md). bin/run.js's routes load them with
// bin/loader.js's loadBundle for `skiff shim serve` and `skiff auth token|status`.
const esbuild = require('esbuild');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { servingNodeFlags } = require('./serving-node-flags');

const root = path.join(__dirname, '..');

// Each bundle is built from its entry point, src/infrastructure/entry/<name>.ts. `module`
// names the one module of the composition root (src/infrastructure/<product>/*.module.ts)
// it needs: the lazy require()s of the others stay out of it (buildContainer never loads
// them on that path).
const BUNDLES = {
  // `skiff shim serve` binds its socket with this small bundle before it reads the
  // large one.
  'shim-listen': { external: [], module: 'shim.module' },
  // The native addon (build/Release/skiff_native.node) is loaded by path at run time. The
  // events forwarded to containerd are the serving process's alone (shim.module.ts requires
  // them only there): left out, `skiff shim serve` reads no more than it did.
  shim: { external: [], module: 'shim.module', leftOut: ['adapters/shim/outbound/events/forwarded-events'] },
  // The serving process behind containerd-shim-skiff-v2 (bin/containerd-daemon.js). Its code
  // cache holds every function compiled (`eager`): a build cannot run its request path (runc
  // and containerd as root), and a node's first pod would otherwise compile it on the way
  // (docs/performance.md, "The node daemon").
  containerd: { external: [], module: 'shim.module', eager: true },
  // The HTTP stack and jose are loaded only when a token must be refreshed, the YAML
  // library only for a config.yaml that is more than plain YAML (plain-yaml.ts): a valid
  // cache and a contexts file written by `skiff config` never pay for them; the OS keyring's
  // native module only for a record kept in the keyring.
  auth: {
    external: ['axios', 'https-proxy-agent', 'proxy-from-env', 'yaml', 'jose', '@napi-rs/keyring'],
    module: 'login.module',
  },
  // `auth token` and `auth kube-credential` with a valid cache: no container, so no module of
  // the composition root and no inversify (the build fails if anything pulls them in). Built
  // from the TypeScript sources: as ES modules esbuild hoists them into one scope and drops
  // the exports nothing uses, which tsc's CommonJS output does not allow (31 KB against 54).
  // It has no decorators, whose metadata esbuild would not emit.
  'auth-read': {
    external: ['yaml', '@napi-rs/keyring'],
    module: undefined,
    forbidden: ['inversify', 'reflect-metadata'],
    fromSource: true,
  },
  // `auth git-credential` (git, for every fetch and push) with what it needs in the cache: the
  // same, in a bundle of its own so that `auth token` does not load git's part (9 KB).
  'git-credential-read': {
    external: ['yaml', '@napi-rs/keyring'],
    module: undefined,
    forbidden: ['inversify', 'reflect-metadata'],
    fromSource: true,
  },
};

// inversify's ES module build, so esbuild hoists its ~150 small modules into one
// scope instead of wrapping each CommonJS module: a smaller bundle and code cache
// (about 2 ms off `auth token`, docs/performance.md, "The login flow"). Its own imports are ES modules too.
const ALIAS = {
  inversify: require.resolve('inversify').replace(`${path.sep}cjs${path.sep}`, `${path.sep}esm${path.sep}`),
};

/** Fails the build when the bundle would hold one of `names` (packages, with their subpaths). */
function forbid(names) {
  return {
    name: 'forbid',
    setup(build) {
      for (const name of names) {
        // Package names here have no regular expression characters but `-`.
        build.onResolve({ filter: new RegExp(`^${name}(/|$)`) }, (args) => ({
          errors: [{ text: `${name} must stay out of this bundle (imported by ${args.importer})` }],
        }));
      }
    },
  };
}

/**
 * Modules `names` (paths under dist/, without .js) replaced by one that throws when it is
 * evaluated: for a lazy require() the bundle's process never makes.
 */
function leaveOut(names) {
  return {
    name: 'leave-out',
    setup(build) {
      for (const name of names) {
        build.onResolve({ filter: new RegExp(`/${name.split('/').pop()}$`) }, (args) =>
          path.join(args.resolveDir, args.path).endsWith(path.join(...name.split('/')))
            ? { path: name, namespace: 'left-out' }
            : undefined,
        );
      }
      build.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is left out of this bundle (scripts/bundle.js)`)});`,
        loader: 'js',
      }));
    },
  };
}

function onlyModule(keep) {
  return {
    name: 'only-module',
    setup(build) {
      build.onResolve({ filter: /\/[a-z-]+\.module$/ }, (args) =>
        keep !== undefined && args.path.endsWith(`/${keep}`) ? undefined : { path: args.path, external: true },
      );
    },
  };
}

/**
 * Writes the bundle's V8 code cache in a process of its own (scripts/code-cache.js) run with
 * the Node.js flags of the process that will load it, its output discarded; its standard
 * input is scripts/warm-up/<name>.stdin when there is one.
 */
function writeCodeCache(name) {
  const input = path.join(__dirname, 'warm-up', `${name}.stdin`);
  const stdin = fs.existsSync(input) ? fs.openSync(input, 'r') : 'ignore';
  let result;
  try {
    const flags = name === 'containerd' ? servingNodeFlags() : [];
    const eager = BUNDLES[name].eager ? ['--eager'] : [];
    result = spawnSync(process.execPath, [...flags, path.join(__dirname, 'code-cache.js'), name, ...eager], {
      stdio: [stdin, 'ignore', 'pipe'],
      encoding: 'utf8',
    });
  } finally {
    if (typeof stdin === 'number') fs.closeSync(stdin);
  }
  if (result.status !== 0) throw new Error(`the code cache of ${name}: ${result.stderr || `exit ${result.status}`}`);
}

async function main() {
  const only = process.argv.slice(2);
  // containerd-shim-skiff-v2 starts its serving process with the Node.js that built it:
  // containerd's PATH need not have one.
  fs.writeFileSync(path.join(root, 'dist/node-path'), process.execPath);
  for (const [name, bundle] of Object.entries(BUNDLES)) {
    if (only.length > 0 && !only.includes(name)) continue;
    await build(name, bundle);
    writeCodeCache(name);
  }
}

async function build(name, bundle) {
  await esbuild.build({
    entryPoints: [
      bundle.fromSource
        ? path.join(root, 'src', 'infrastructure', 'entry', `${name}.ts`)
        : path.join(root, 'dist', 'infrastructure', 'entry', `${name}.js`),
    ],
    outfile: path.join(root, `dist/${name}.bundle.js`),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Identifiers are kept so stack traces stay readable.
    minifyWhitespace: true,
    minifySyntax: true,
    external: bundle.external,
    alias: ALIAS,
    plugins: [onlyModule(bundle.module), forbid(bundle.forbidden ?? []), leaveOut(bundle.leftOut ?? [])],
    logLevel: 'warning',
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

import Module = require('node:module');

type Resolve = (request: string, parent: unknown, ...rest: unknown[]) => string;

const SKIFF = /^skiff-cli(\/|$)/;

/**
 * Plugins import `skiff-cli/plugin`, which they list as an optional peer dependency:
 * whatever copy of skiff they were built or tested with, at run time they get the
 * running one, so their commands share its composition root, error classes and
 * files. `require('skiff-cli...')` from anywhere is resolved as if from inside this
 * package (a package may require itself by name through its "exports"). Only that
 * name: `skiff` on the npm registry is another project, which a plugin may use.
 * CommonJS only: an ES module plugin would resolve `skiff-cli` on its own.
 */
export function sharePackageWithPlugins(): void {
  const loader = Module as unknown as { _resolveFilename: Resolve };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (this: unknown, request, parent, ...rest) {
    return resolve.call(this, request, SKIFF.test(request) ? module : parent, ...rest);
  };
}

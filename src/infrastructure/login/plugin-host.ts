import Module = require('node:module');

type Resolve = (request: string, parent: unknown, ...rest: unknown[]) => string;

const SKIFF = /^skiff(\/|$)/;

/**
 * Plugins import `skiff/plugin`, which they list as an optional peer dependency:
 * whatever copy of skiff they were built or tested with, at run time they get the
 * running one, so their commands share its composition root, error classes and
 * files. `require('skiff...')` from anywhere is resolved as if from inside this
 * package (a package may require itself by name through its "exports"). CommonJS
 * only: an ES module plugin would resolve `skiff` on its own.
 */
export function sharePackageWithPlugins(): void {
  const loader = Module as unknown as { _resolveFilename: Resolve };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (this: unknown, request, parent, ...rest) {
    return resolve.call(this, request, SKIFF.test(request) ? module : parent, ...rest);
  };
}

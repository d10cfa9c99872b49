import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { compile } from './c-build';

/**
 * What a root process of the shim could run or load, by what a file is: everything in bin/ and
 * prebuilds/, package.json (Node reads it to run bin/'s scripts), JavaScript, addons, V8 code caches
 * and any executable. Deliberately wider than the rules of native/containerd-shim/package-code.c,
 * which it checks.
 */
export function isCode(path: string, mode = 0o644): boolean {
  return (
    /^(bin|prebuilds)\//.test(path) ||
    path === 'package.json' ||
    /\.(js|cjs|mjs|node|cache)$/.test(path) ||
    (mode & 0o111) !== 0
  );
}

/** The CLI's modules under dist/'s folders: no root process loads them (the serving process runs
 * its bundle, which requires nothing of the package's: test/native/package-code.test.ts). */
export function isCliModule(path: string): boolean {
  return /^dist\/[^/]+\//.test(path);
}

/** The files of `files` that are code (isCode) a root process may load and package-code.c's walk leaves out. */
export function unjudgedCode(files: readonly string[], modes: ReadonlyMap<string, number> = new Map()): string[] {
  const judged = judgedIn(files);
  return files.filter((path) => isCode(path, modes.get(path)) && !isCliModule(path) && !judged.has(path));
}

/**
 * The paths (relative, as `files` has them) that package-code.c's own walk visits in a package
 * holding `files`: a stand-in package of empty files in a temporary directory, walked by
 * test/native/support/package-code-list.c built with the shim's C.
 */
export function judgedIn(files: readonly string[]): Set<string> {
  const work = mkdtempSync(join(tmpdir(), 'skiff-package-code-'));
  try {
    const lister = join(work, 'package-code-list');
    compile(
      {
        sources: [
          'test/native/support/package-code-list.c',
          'native/containerd-shim/package-code.c',
          'native/containerd-shim/root-owned.c',
        ],
        includeDirs: ['native/containerd-shim'],
        cflags: ['-Wall', '-Wextra', '-Werror'],
        defines: [],
      },
      lister,
    );
    const pkg = join(work, 'package');
    for (const file of files) {
      mkdirSync(dirname(join(pkg, file)), { recursive: true });
      writeFileSync(join(pkg, file), '');
    }
    const listed = execFileSync(lister, [pkg], { encoding: 'utf8' });
    return new Set(
      listed
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.slice(pkg.length + 1)),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

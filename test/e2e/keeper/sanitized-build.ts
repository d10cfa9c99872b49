import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

/** A target's sources and flags as binding.gyp lists them (gyp is JSON with `#` comments). */
function gypTarget(name: string): { sources: string[]; cflags: string[]; includes: string[] } {
  const text = readFileSync(join(ROOT, 'binding.gyp'), 'utf8').replace(/^\s*#.*$/gm, '');
  const gyp = JSON.parse(text) as {
    target_defaults: { include_dirs: string[]; cflags: string[] };
    conditions: Array<[string, { targets: Array<Record<string, string[]>> }]>;
  };
  const target = gyp.conditions.flatMap(([, c]) => c.targets).find((t) => t.target_name === (name as never));
  if (target === undefined) throw new Error(`binding.gyp has no target ${name}`);
  return {
    sources: target.sources,
    cflags: [...gyp.target_defaults.cflags.filter((f) => f !== '-O2'), ...(target.cflags ?? [])],
    includes: [...gyp.target_defaults.include_dirs, ...(target.include_dirs ?? [])],
  };
}

/**
 * containerd-shim-skiff-v2 built under AddressSanitizer and UndefinedBehaviorSanitizer (leaks
 * included, every finding fatal), in `dir` laid out as a package: build/Release/<binary>, with
 * bin/ and dist/ linked to this checkout's, since the binary finds the serving process's
 * script from its own path. Returns the binary's path.
 */
export function buildSanitizedShim(dir: string): string {
  const { sources, cflags, includes } = gypTarget('containerd-shim-skiff-v2');
  const out = join(dir, 'build/Release');
  mkdirSync(out, { recursive: true });
  symlinkSync(join(ROOT, 'bin'), join(dir, 'bin'));
  symlinkSync(join(ROOT, 'dist'), join(dir, 'dist'));
  const binary = join(out, 'containerd-shim-skiff-v2');
  const args = [
    '-fsanitize=address,undefined',
    '-fno-sanitize-recover=all',
    '-fno-omit-frame-pointer',
    '-g',
    '-O1',
    ...cflags,
    ...includes.map((i) => `-I${join(ROOT, i)}`),
    ...sources.map((s) => join(ROOT, s)),
    '-o',
    binary,
  ];
  const cc = spawnSync(process.env.CC ?? 'gcc', args, { encoding: 'utf8', timeout: 120_000 });
  if (cc.status !== 0) throw new Error(`the sanitized build failed: ${cc.stderr || cc.error?.message}`);
  return binary;
}

/** Sanitizer reports in a log: ASan, LSan ("ERROR: ...Sanitizer") and UBSan ("runtime error:"). */
export function sanitizerReports(log: string): string[] {
  return log.split('\n').filter((line) => /ERROR: \w*Sanitizer|runtime error:/.test(line));
}

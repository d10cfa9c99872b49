import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The checkout: paths in binding.gyp and in the unit tables are relative to it. */
export const ROOT = resolve(__dirname, '../../..');

/**
 * AddressSanitizer and UndefinedBehaviorSanitizer, halting at the first report (no recovery
 * from UB), with frame pointers for whole stacks: what crun and conmon run their tests with.
 */
export const SANITIZE = ['-fsanitize=address,undefined', '-fno-sanitize-recover=all', '-fno-omit-frame-pointer', '-g'];

/** A C program as binding.gyp builds it: its sources, include dirs and flags (target's and defaults'). */
export interface CProgram {
  readonly sources: readonly string[];
  readonly includeDirs: readonly string[];
  readonly cflags: readonly string[];
}

interface GypTarget {
  target_name: string;
  sources?: string[];
  include_dirs?: string[];
  cflags?: string[];
}
interface GypFile {
  target_defaults?: Omit<GypTarget, 'target_name'>;
  targets?: GypTarget[];
  conditions?: Array<[string, { targets?: GypTarget[] }]>;
}

/** binding.gyp's target `name`, so that what is sanitized is what `npm install` builds. */
export function gypProgram(name: string): CProgram {
  // binding.gyp is JSON with `#` comments (it has no `#` inside strings).
  const text = readFileSync(resolve(ROOT, 'binding.gyp'), 'utf8').replace(/#.*$/gm, '');
  const gyp = JSON.parse(text) as GypFile;
  const targets = [...(gyp.targets ?? []), ...(gyp.conditions ?? []).flatMap(([, c]) => c.targets ?? [])];
  const target = targets.find((t) => t.target_name === name);
  if (target === undefined) throw new Error(`binding.gyp has no target ${name}`);
  const defaults = gyp.target_defaults ?? {};
  return {
    sources: target.sources ?? [],
    includeDirs: [...(defaults.include_dirs ?? []), ...(target.include_dirs ?? [])],
    // -O2 gives way to the sanitizers' -O1 (clearer reports, still the optimiser's UB).
    cflags: [...(defaults.cflags ?? []), ...(target.cflags ?? [])].filter((f) => !f.startsWith('-O')),
  };
}

/** Compiles `program` with `extra` flags into `output`; throws with the compiler's messages. */
export function compile(program: CProgram, output: string, extra: readonly string[] = []): void {
  mkdirSync(dirname(output), { recursive: true });
  const args = [
    ...program.cflags,
    '-O1',
    ...extra,
    ...program.includeDirs.flatMap((dir) => ['-I', resolve(ROOT, dir)]),
    ...program.sources.map((s) => resolve(ROOT, s)),
    '-o',
    output,
  ];
  const result = spawnSync(process.env.CC ?? 'gcc', args, { encoding: 'utf8' });
  if (result.error !== undefined)
    throw new Error(`cannot run the C compiler (${result.error.message}): apt-get install gcc, or set CC`);
  if (result.status !== 0)
    throw new Error(
      `cannot compile ${output}${extra.includes(SANITIZE[0]) ? ' with the sanitizers (gcc brings libasan and libubsan: apt-get install gcc)' : ''}:\n${result.stderr}`,
    );
}

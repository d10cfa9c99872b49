import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { readVectors } from '../../support/vectors';
import { ROOT } from './c-build';

/**
 * The C libFuzzer fuzzers (test/native/fuzz/<name>.fuzz.c), one per parser of untrusted bytes,
 * each built with the C it calls. A new fuzzer: its file, its corpus directory, one line here.
 */
export interface Fuzzer {
  readonly name: string;
  readonly sources: readonly string[];
  /** Seeds made from the shared vectors (test/vectors/), in the fuzzer's input format. */
  readonly seeds?: () => Buffer[];
}

/** A ttrpc vector's bytes as relay.fuzz.c's script: containerd sends them (op 0, 255 bytes a step), then both sides are written. */
function relayScript(input: Buffer): Buffer {
  const steps: Buffer[] = [];
  for (let at = 0; at < Math.min(input.length, 3000); at += 255) {
    const chunk = input.subarray(at, Math.min(at + 255, input.length));
    steps.push(Buffer.from([0, chunk.length]), chunk);
  }
  steps.push(Buffer.from([2, 0, 3, 0]));
  return Buffer.concat(steps);
}

export const FUZZERS: readonly Fuzzer[] = [
  {
    name: 'relay',
    sources: [
      'native/keeper/relay.c',
      'native/keeper/state-cache.c',
      'native/keeper/state-learned.c',
      'native/keeper/ttrpc-wire.c',
      'native/common/proto-wire.c',
    ],
    seeds: () => readVectors('ttrpc').map((v) => relayScript(v.input)),
  },
  {
    name: 'control-wire',
    sources: ['native/keeper/control-wire.c'],
    seeds: () => readVectors('control').map((v) => v.input.subarray(0, 4096)),
  },
  { name: 'json-read', sources: ['native/common/json-read.c'] },
  { name: 'shim-flags', sources: ['native/containerd-shim/flags.c', 'native/containerd-shim/refuse.c'] },
  { name: 'sandbox-flags', sources: ['native/containerd-shim/sandbox-flags.c', 'native/containerd-shim/refuse.c'] },
  { name: 'shim-info', sources: ['native/containerd-shim/runtime-info.c', 'native/common/proto-wire.c'] },
  {
    name: 'shim-bootstrap',
    sources: ['native/containerd-shim/bootstrap.c', 'native/common/proto-wire.c'],
  },
];

/** libFuzzer with the sanitizers, as Debian's clang builds it; the C of a fuzzer sits in native/'s rooms. */
export const FUZZ_FLAGS = ['-g', '-O1', '-fsanitize=fuzzer,address,undefined', '-fno-sanitize-recover=all'];
const CLANG = 'clang';
const INSTALL = 'apt-get install clang libclang-rt-14-dev';

/** Why the fuzzers cannot be built here (clang or libFuzzer's runtime missing), or undefined. */
export function fuzzingMissing(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-fuzz-probe-'));
  try {
    const probe = join(dir, 'probe.c');
    writeFileSync(
      probe,
      '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n',
    );
    const result = spawnSync(CLANG, [...FUZZ_FLAGS, probe, '-o', join(dir, 'probe')], { encoding: 'utf8' });
    if (result.error !== undefined) return `${CLANG} is not installed (${INSTALL})`;
    if (result.status !== 0) return `${CLANG} cannot link libFuzzer with the sanitizers (${INSTALL})`;
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Builds a fuzzer's sources (paths from the checkout, or absolute) into `output`; throws with the compiler's messages. */
export function buildFuzzer(sources: readonly string[], output: string): void {
  mkdirSync(dirname(output), { recursive: true });
  const rooms = readdirSync(join(ROOT, 'native'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => ['-I', join(ROOT, 'native', e.name)]);
  const args = [...FUZZ_FLAGS, '-Wall', '-Wextra', '-Werror', ...rooms, ...sources.map((s) => resolve(ROOT, s))];
  const result = spawnSync(CLANG, [...args, '-o', output], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`cannot build ${output}:\n${result.error?.message ?? result.stderr}`);
}

export interface FuzzRun {
  /** Seconds of fuzzing, and at most this many inputs (undefined: no bound but the time). */
  readonly seconds: number;
  readonly runs?: number;
  /** Where new interesting inputs go (libFuzzer's first corpus directory). */
  readonly workCorpus: string;
  /** Where a crashing input is written, for the developer to replay (`<binary> <file>`). */
  readonly artifacts: string;
}

export interface FuzzOutcome {
  readonly ok: boolean;
  /** The reproducers written, and the report's end, when not ok. */
  readonly reproducers: readonly string[];
  readonly report: string;
}

/** Runs a built fuzzer over its committed corpus and `seeds`; fails on any crash, leak or sanitizer report. */
export function runFuzzer(binary: string, corpora: readonly string[], run: FuzzRun): FuzzOutcome {
  mkdirSync(run.workCorpus, { recursive: true });
  mkdirSync(run.artifacts, { recursive: true });
  const args = [
    `-max_total_time=${run.seconds}`,
    ...(run.runs !== undefined ? [`-runs=${run.runs}`] : []),
    `-artifact_prefix=${run.artifacts}/`,
    '-timeout=10',
    '-rss_limit_mb=2048',
    '-print_final_stats=0',
    run.workCorpus,
    ...corpora,
  ];
  const result = spawnSync(binary, args, {
    encoding: 'utf8',
    timeout: (run.seconds + 60) * 1000,
    maxBuffer: 64 << 20,
    env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1', UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1' },
  });
  const output = `${result.stdout}${result.stderr}`;
  const reproducers = [...output.matchAll(/Test unit written to (\S+)/g)].map((m) => m[1]);
  const ok =
    result.status === 0 && reproducers.length === 0 && !/runtime error|ERROR: (Address|Leak)Sanitizer/.test(output);
  return { ok, reproducers, report: ok ? '' : output.split('\n').slice(-60).join('\n') };
}

/** Writes seeds into a new directory under `dir`; its path (for runFuzzer's corpora). */
export function writeSeeds(dir: string, seeds: readonly Buffer[]): string {
  mkdirSync(dir, { recursive: true });
  seeds.forEach((seed, i) => writeFileSync(join(dir, `vector-${i}`), seed));
  return dir;
}

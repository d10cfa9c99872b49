import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './support/c-build';
import { buildFuzzer, FUZZERS, fuzzingMissing, runFuzzer, writeSeeds } from './support/fuzzers';

/**
 * Each C parser of untrusted bytes under libFuzzer with AddressSanitizer and
 * UndefinedBehaviorSanitizer (native/README.md, "Checks"): a few seconds each in `npm test`
 * (SKIFF_FUZZ_SECONDS, which `npm run fuzz` raises), from its committed corpus
 * (test/native/fuzz/corpus/<name>/) and the shared vectors. A crash, a leak or a report fails
 * the test, naming the reproducer written under build/fuzz/<name>/.
 */
const SECONDS = Number(process.env.SKIFF_FUZZ_SECONDS ?? '2');
/** In `npm test` a bound on inputs too, so a fast machine does not spend its whole time; none in `npm run fuzz`. */
const RUNS = process.env.SKIFF_FUZZ_SECONDS === undefined ? 500_000 : undefined;
const CI = !['', '0', 'false'].includes((process.env.CI ?? '').toLowerCase());

const missing = fuzzingMissing();
if (missing !== undefined && !CI)
  process.stderr.write(`fuzzers not run here: ${missing}; CI=true makes this an error\n`);

/** In CI a missing clang is a failure; elsewhere the one line above, and the test does nothing. */
function fuzzingHere(): boolean {
  if (missing !== undefined && CI) throw new Error(`the fuzzers cannot run: ${missing} (CI=true makes this an error)`);
  return missing === undefined;
}

describe('the C fuzzers', () => {
  const out = mkdtempSync(join(tmpdir(), 'skiff-fuzz-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it.each(FUZZERS)(
    '$name: no crash, leak or undefined behaviour',
    ({ name, sources, seeds }) => {
      if (!fuzzingHere()) return;
      // Built where its reproducers are kept, so the replay line below works after the test.
      const kept = join(ROOT, 'build/fuzz', name);
      const binary = join(kept, name);
      buildFuzzer([`test/native/fuzz/${name}.fuzz.c`, ...sources], binary);
      const corpora = [join(ROOT, 'test/native/fuzz/corpus', name)];
      if (seeds !== undefined) corpora.push(writeSeeds(join(out, `${name}-vectors`), seeds()));
      const outcome = runFuzzer(binary, corpora, {
        seconds: SECONDS,
        runs: RUNS,
        // New inputs are worth keeping only from a long run (`npm run fuzz`), for the developer to add.
        workCorpus: RUNS === undefined ? join(kept, 'corpus') : join(out, `${name}-new`),
        artifacts: kept,
      });
      if (!outcome.ok)
        throw new Error(
          `the ${name} fuzzer failed; replay with: ${binary} ${outcome.reproducers.join(' ') || '(no reproducer written)'}\n` +
            `(reproducers stay in build/fuzz/${name}/; once fixed, add one to test/native/fuzz/corpus/${name}/)\n${outcome.report}`,
        );
    },
    (SECONDS + 90) * 1000,
  );

  it('fails on a crash, naming the input that crashes', () => {
    if (!fuzzingHere()) return;
    // A fuzzer with a deliberate bug, and the input that finds it among its seeds.
    const source = join(out, 'bug.fuzz.c');
    writeFileSync(
      source,
      '#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n' +
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {\n' +
        '  char *copy = malloc(n ? n : 1);\n  memcpy(copy, d, n);\n' +
        '  if (n >= 3 && memcmp(d, "BUG", 3) == 0) copy[n] = 0; /* one past the end */\n' +
        '  free(copy);\n  return 0;\n}\n',
    );
    buildFuzzer([source], join(out, 'bug'));
    const seeds = writeSeeds(join(out, 'bug-seeds'), [Buffer.from('BUG!')]);
    const outcome = runFuzzer(join(out, 'bug'), [seeds], {
      seconds: 10,
      workCorpus: join(out, 'bug-new'),
      artifacts: join(out, 'bug-artifacts'),
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.report).toMatch(/heap-buffer-overflow/);
    expect(outcome.reproducers).toHaveLength(1);
    expect(existsSync(outcome.reproducers[0])).toBe(true);
  }, 60_000);
});

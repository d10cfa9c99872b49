import { join } from 'node:path';
import { compile, gypProgram, ROOT, SANITIZE } from './support/c-build';
import { SanitizerRuns } from './support/sanitizer-run';
import { SanitizedProgram } from './support/sanitized-program';
import { containerdShim } from './sanitized/containerd-shim';
import { podKeeper } from './sanitized/pod-keeper';
import { sandboxVerb } from './sanitized/sandbox';

/**
 * The long-lived native programs, built as binding.gyp builds them plus -fsanitize=address,undefined
 * (halting at the first report), and exercised: a memory error there ends containers. Built into
 * build/Sanitized/, beside build/Release/, so a program finds the package as it does when installed.
 * A new program: its exercise in sanitized/, and one line here.
 */
const PROGRAMS: readonly SanitizedProgram[] = [containerdShim, podKeeper, sandboxVerb];

const LINUX = process.platform === 'linux';
const built = new Set<string>();

describe('the sanitized programs', () => {
  it.each(PROGRAMS.map((p) => p.target))('%s is a target of binding.gyp', (target) => {
    expect(gypProgram(target).sources.length).toBeGreaterThan(0);
  });
});

if (!LINUX) process.stderr.write('sanitized native programs not run: they are Linux-only\n');

if (LINUX)
  describe.each(PROGRAMS.map((p) => ({ title: [p.target, p.mode].filter(Boolean).join(' '), program: p })))(
    '$title under ASan and UBSan',
    ({ program }) => {
      const binary = join(ROOT, 'build/Sanitized', program.target);
      const runs = new SanitizerRuns();
      // A target exercised in several parts is built once.
      beforeAll(() => {
        if (!built.has(program.target)) compile(gypProgram(program.target), binary, SANITIZE);
        built.add(program.target);
      }, 60_000);
      afterAll(() => {
        program.cleanUp?.();
        runs.remove();
      });

      it.each(program.cases)('$name, without a sanitizer report', async (c) => {
        await c.run(binary, runs);
        expect(runs.reports()).toBe('');
      });
    },
  );

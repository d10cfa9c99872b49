import { keepersWanted } from '../../../../src/adapters/shim/os/keepers-wanted';
import { readVectors } from '../../../support/vectors';

/**
 * The SKIFF_KEEPER rule of the serving process and `skiff containerd restart`, held to the
 * answers of `start` and `serve` (native/containerd-shim/keeper-wanted.c) by the shared vectors
 * (test/vectors/keeper-wanted; the C side: test/native/units/keeper-wanted-vectors.test.c).
 */
describe('the SKIFF_KEEPER rule', () => {
  const vectors = readVectors('keeper-wanted');

  it('has vectors to read', () => {
    expect(vectors.length).toBeGreaterThan(0);
  });

  it.each(vectors.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
    let env: Record<string, string | undefined> | undefined;
    let checked = 0;
    for (const { key, rest } of vector.lines) {
      if (key === 'unset') env = {};
      else if (key === 'value') env = { SKIFF_KEEPER: rest };
      else if (key === 'keepers') {
        expect(env).toBeDefined();
        expect(['wanted', 'off']).toContain(rest);
        expect(keepersWanted(env ?? {})).toBe(rest === 'wanted');
        checked++;
      } else throw new Error(`${vector.name}: unknown line ${key}`);
    }
    expect(checked).toBe(1);
  });
});
